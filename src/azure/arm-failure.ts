// Turns whatever the SDK threw into one plain description that the retry policy can judge.

export type FailureKind =
  /** 409: another write holds the scale set (ConflictingConcurrentWriteNotAllowed and friends). */
  | "conflict"
  /** 412: our If-Match ETag is stale; someone else wrote in between. */
  | "precondition"
  /** 429: Azure's throttling. */
  | "throttled"
  /** 408 and 5xx, except 501 Not Implemented and 505 HTTP Version Not Supported (asking again cannot change those). */
  | "server"
  /** No HTTP answer at all: reset, refused, timed out. */
  | "network"
  /** A long-running operation that Azure ended as Failed with a code known to be transient. */
  | "operationFailedTransient"
  /** A long-running operation that Azure ended as Canceled (OperationPreempted: a more recent write replaced it). */
  | "canceled"
  /** A bug in our own code (TypeError, ReferenceError, …): never retried, reported as what it is. */
  | "programming"
  /** 404: the scale set (or its resource group) does not exist. */
  | "notFound"
  /** Anything else: other 4xx, a long-running operation that failed for good, a plan that cannot be made. */
  | "terminal";

export interface ArmFailure {
  kind: FailureKind;
  status?: number;
  code?: string;
  message: string;
  /** What Azure asked us to wait, from Retry-After / retry-after-ms / x-ms-retry-after-ms. */
  retryAfterMs?: number;
}

/**
 * An error that carries its failure as classified where it happened (a RefusalError, executeOp's and observe()'s
 * GaveUpError): describeArmFailure reads it back and never classifies it again. As CAPZ's azure/errors.go builds
 * an error only as transient or terminal, whether to retry is decided once, here, and travels with it.
 */
export class ClassifiedError extends Error {
  readonly failure: ArmFailure;
  constructor(message: string, failure: ArmFailure) {
    super(message);
    this.failure = failure;
  }
}

/**
 * Our own code refuses to go on: a plan that cannot be made (below the recorded min, a protected instance), a state
 * it will not act on (a suspicious read, a scale set in another region), a limit reached. Its code and kind are
 * decided where it is thrown: terminal unless it says otherwise (a wait that ran out is a conflict, retried).
 */
export class RefusalError extends ClassifiedError {
  override name = "RefusalError";
  constructor(code: string, message: string, kind: FailureKind = "terminal") {
    super(message, { kind, code, message });
  }

  get code(): string {
    return this.failure.code!;
  }

  get kind(): FailureKind {
    return this.failure.kind;
  }
}

/**
 * A long-running operation that Azure ended as Failed or Canceled, with the error code of its status document
 * (`{"status":"Failed","error":{"code":"AllocationFailed",…}}`). @azure/core-lro throws a plain Error whose
 * message is the only place the code survives ("The long-running operation has failed. <code>. …", or "Operation was
 * canceled" with none), so src/azure/long-running.ts throws this instead, built from the status document itself.
 */
export class LongRunningOperationError extends Error {
  override name = "LongRunningOperationError";
  readonly status: "Failed" | "Canceled";
  readonly code: string | undefined;
  constructor(status: "Failed" | "Canceled", code: string | undefined, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The scale set exists, in another region than the one asked for (vmss-gateway.ts refuses to act on it). */
export const REGION_MISMATCH = "RegionMismatch";

/**
 * Nothing of that name where it was asked for: Azure's 404, or a scale set of that name in another region. A reader
 * is told "not found" for both; an operation keeps them apart (destroy must not call a scale set elsewhere gone).
 */
export function isAbsentHere(failure: ArmFailure): boolean {
  return failure.kind === "notFound" || failure.code === REGION_MISMATCH;
}

/** Errors that only a bug in our code throws: retrying cannot help, and they must not pass for an Azure failure. */
const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

export function isProgrammingError(err: unknown): boolean {
  return PROGRAMMING_ERRORS.some((type) => err instanceof type);
}

/**
 * Codes with which Azure ends a long-running operation that is worth running again from a fresh read:
 * another writer won the race, the platform preempted us, or something broke inside Azure.
 */
const TRANSIENT_OPERATION_CODES = new Set([
  "conflictingconcurrentwritenotallowed",
  "operationpreempted",
  "internalexecutionerror",
  "internalservererror",
  "internaloperationerror",
  "serverbusy",
  "retryableerror",
  "toomanyrequests",
  "allocationfailed",
  "zonalallocationfailed",
  "overconstrainedallocationrequest",
]);

export function isTransientOperationCode(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_OPERATION_CODES.has(code.toLowerCase());
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "REQUEST_SEND_ERROR",
  // Ours: an ARM call past its deadline (arm-link.ts), as if the socket had timed out.
  "ArmCallTimeout",
]);

/**
 * 409s that are not a write lock: retrying cannot change Azure's answer. ScopeLocked is a management lock, which
 * stays until a person removes it.
 */
const PERMANENT_CONFLICT_CODES = new Set([
  "invalidresourcelocation",
  "operationnotallowed",
  "propertychangenotallowed",
  "scopelocked",
]);

export function kindForStatus(status: number, code?: string): FailureKind {
  if (status === 404) return "notFound";
  if (status === 409) return code && PERMANENT_CONFLICT_CODES.has(code.toLowerCase()) ? "terminal" : "conflict";
  if (status === 412) return "precondition";
  if (status === 429) return "throttled";
  // The Azure SDK's rule (core-rest-pipeline isExponentialRetryResponse): 408, or ≥ 500 except 501 and 505.
  if (status === 408 || (status >= 500 && status !== 501 && status !== 505)) return "server";
  return "terminal";
}

interface HeaderBag {
  get(name: string): string | undefined;
}

/** Retry-After in any of the forms ARM uses, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfterMs(headers: HeaderBag | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  for (const name of ["retry-after-ms", "x-ms-retry-after-ms"]) {
    const v = headers.get(name);
    if (v !== undefined && /^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v));
  }
  const v = headers.get("retry-after");
  if (v === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function firstLine(s: string): string {
  const line = s.split("\n")[0] ?? s;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * One plain description of whatever a call to Azure threw, by the error's type and code only: its message is for
 * people (a TypeError about networkInterfaceConfigurations is a bug, not a network failure).
 */
export function describeArmFailure(err: unknown): ArmFailure {
  if (err instanceof ClassifiedError) return err.failure;
  if (err instanceof LongRunningOperationError) {
    const kind: FailureKind =
      err.status === "Canceled"
        ? "canceled"
        : isTransientOperationCode(err.code)
          ? "operationFailedTransient"
          : "terminal";
    return {
      kind,
      code: err.code ?? (err.status === "Canceled" ? "OperationCanceled" : "OperationFailed"),
      message: firstLine(err.message),
    };
  }
  if (isProgrammingError(err)) {
    const e = err as Error;
    return { kind: "programming", code: e.name, message: firstLine(e.message) };
  }
  const e = err as {
    name?: string;
    message?: string;
    statusCode?: number;
    code?: string;
    response?: { headers?: HeaderBag; bodyAsText?: string };
    cause?: { code?: string };
  };
  const message = typeof e?.message === "string" ? e.message : String(err);
  if (typeof e?.statusCode === "number") {
    return {
      kind: kindForStatus(e.statusCode, e.code),
      status: e.statusCode,
      code: e.code,
      message: firstLine(message),
      retryAfterMs: parseRetryAfterMs(e.response?.headers),
    };
  }
  // No HTTP answer: a network failure when the code says so (the SDK's RestError carries the socket's code).
  const netCode = e?.code ?? e?.cause?.code;
  if (netCode && NETWORK_CODES.has(netCode)) {
    return { kind: "network", code: netCode, message: firstLine(message) };
  }
  return { kind: "terminal", code: e?.code ?? e?.name ?? "Error", message: firstLine(message) };
}

/** "409 ConflictingConcurrentWriteNotAllowed", "network ECONNRESET", "Failed OperationPreempted". */
export function failureLabel(f: ArmFailure): string {
  if (f.status !== undefined) return `${f.status} ${f.code ?? "Error"}`;
  if (f.kind === "network") return `network error ${f.code ?? ""}`.trim();
  if (f.kind === "canceled")
    return f.code && f.code !== "OperationCanceled" ? `operation canceled ${f.code}` : "operation canceled";
  if (f.kind === "programming") return `internal error ${f.code ?? ""}`.trim();
  if (f.kind === "operationFailedTransient" || (f.kind === "terminal" && f.code)) return `operation failed ${f.code}`;
  return f.code ?? "error";
}
