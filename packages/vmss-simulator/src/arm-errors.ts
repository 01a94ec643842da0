// ARM error responses: `{"error":{"code","message","target"?}}` with the status and wording Azure uses.
// Where Azure's exact wording is known it is copied; see docs/simulator.md for the list.

export interface ArmErrorDetail {
  code: string;
  message: string;
  target?: string;
}

export interface ArmErrorBody {
  error: {
    code: string;
    message: string;
    target?: string;
    details?: ArmErrorDetail[];
    innererror?: Record<string, unknown>;
  };
}

/** An error that becomes an ARM error response. Thrown by handlers, caught by the server. */
export class ArmError extends Error {
  override name = "ArmError";
  readonly status: number;
  readonly code: string;
  readonly target: string | undefined;
  readonly headers: Record<string, string>;
  readonly details: ArmErrorDetail[] | undefined;
  readonly innerError: Record<string, unknown> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      target?: string;
      headers?: Record<string, string>;
      details?: ArmErrorDetail[];
      innerError?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.target = options.target;
    this.headers = options.headers ?? {};
    this.details = options.details;
    this.innerError = options.innerError;
  }

  toBody(): ArmErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.target !== undefined ? { target: this.target } : {}),
        ...(this.details !== undefined ? { details: this.details } : {}),
        ...(this.innerError !== undefined ? { innererror: this.innerError } : {}),
      },
    };
  }
}

export const VMSS_TYPE = "Microsoft.Compute/virtualMachineScaleSets";

export function authenticationMissing(): ArmError {
  return new ArmError(401, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.");
}

export function authenticationInvalidFormat(): ArmError {
  return new ArmError(
    401,
    "AuthenticationFailed",
    "Authentication failed. The 'Authorization' header is provided in an invalid format.",
  );
}

export function missingApiVersion(): ArmError {
  return new ArmError(
    400,
    "MissingApiVersionParameter",
    "The api-version query parameter (?api-version=) is required for all requests.",
  );
}

export function subscriptionNotFound(subscriptionId: string): ArmError {
  return new ArmError(404, "SubscriptionNotFound", `The subscription '${subscriptionId}' could not be found.`);
}

export function resourceGroupNotFound(resourceGroup: string): ArmError {
  return new ArmError(404, "ResourceGroupNotFound", `Resource group '${resourceGroup}' could not be found.`);
}

export function resourceNotFound(type: string, name: string, resourceGroup: string): ArmError {
  return new ArmError(
    404,
    "ResourceNotFound",
    `The Resource '${type}/${name}' under resource group '${resourceGroup}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
  );
}

export function operationNotFound(operationId: string): ArmError {
  return new ArmError(404, "NotFound", `The operation '${operationId}' was not found.`);
}

export function conflictingConcurrentWrite(): ArmError {
  return new ArmError(
    409,
    "ConflictingConcurrentWriteNotAllowed",
    "The operation was interrupted by a conflicting concurrent write on the same entity. Please retry later.",
  );
}

export function preconditionFailed(message: string): ArmError {
  return new ArmError(412, "PreconditionFailed", message);
}

export function invalidRequestContent(detail: string): ArmError {
  return new ArmError(
    400,
    "InvalidRequestContent",
    `The request content was invalid and could not be deserialized: '${detail}'.`,
  );
}

export function requestTooLarge(limitBytes: number): ArmError {
  return new ArmError(
    413,
    "RequestEntityTooLarge",
    `The request content size exceeds the maximum permitted size of ${limitBytes} bytes.`,
  );
}

export function invalidParameter(message: string, target?: string): ArmError {
  return new ArmError(400, "InvalidParameter", message, target !== undefined ? { target } : {});
}

export function missingParameter(name: string): ArmError {
  return invalidParameter(`Required parameter '${name}' is missing (null).`, name);
}

export function locationRequired(): ArmError {
  return new ArmError(400, "LocationRequired", "The location property is required for this definition.");
}

export function invalidResourceLocation(
  name: string,
  existing: string,
  requested: string,
  resourceGroup: string,
): ArmError {
  return new ArmError(
    409,
    "InvalidResourceLocation",
    `The resource '${name}' already exists in location '${existing}' in resource group '${resourceGroup}'. A resource with the same name cannot be created in location '${requested}'. Please select a new resource name.`,
  );
}

export function routeNotFound(path: string): ArmError {
  return new ArmError(
    404,
    "NotFound",
    `No HTTP resource was found that matches the request URI '${path}'. (The simulator does not implement this path.)`,
  );
}

/**
 * What Azure answers but the simulator does not model: 501 NotImplemented, saying so. Never a 404, which a client
 * would read as "the resource does not exist"; the SDKs do not retry a 501.
 */
export function notSimulated(detail: string): ArmError {
  return new ArmError(
    501,
    "NotImplemented",
    `${detail} (The ARM simulator does not simulate this; see docs/simulator.md.)`,
  );
}

export function methodNotAllowed(method: string, allowed: string[]): ArmError {
  return new ArmError(405, "MethodNotAllowed", `The requested resource does not support http method '${method}'.`, {
    headers: { allow: allowed.join(", ") },
  });
}
