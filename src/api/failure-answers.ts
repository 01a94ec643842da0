// The HTTP answer for a failure met while reading Azure, written once. Every route that reports what Azure said
// derives it from the failure as classified (src/azure/arm-failure.ts) and the retry policy's rule
// (src/azure/retry-policy.ts isRetryableKind): nobody downstream guesses again.
import { describeArmFailure, isAbsentHere, type ArmFailure } from "../azure/arm-failure.ts";
import { isRetryableKind } from "../azure/retry-policy.ts";
import { ApiError, apiError } from "./error-catalogue.ts";

/** Retry-After of a 503 when Azure named no time of its own. */
const DEFAULT_RETRY_AFTER_S = 5;

/**
 * 404 when there is nothing of that name there; 503 "try again", with Retry-After, when asking again can succeed
 * (Azure's 5xx, 429, a network failure); 502 when Azure answered for good. `what` names what was read ("server group x in y").
 */
export function httpErrorOf(failure: ArmFailure, what: string): ApiError {
  // Azure's own code leads the sentence: it is what an operator searches for (InvalidAuthenticationToken, …).
  const said =
    failure.code && !failure.message.includes(failure.code) ? `${failure.code}: ${failure.message}` : failure.message;
  if (isAbsentHere(failure)) return apiError("NotFound", { what: `${what} not found: ${said}` });
  if (isRetryableKind(failure.kind)) {
    // When to ask again: what Azure asked for (a throttle's Retry-After), else a few seconds, as a dependency's
    // outage is answered everywhere here. Whole seconds: some clients parse it as an integer.
    const seconds =
      failure.retryAfterMs !== undefined ? Math.max(1, Math.ceil(failure.retryAfterMs / 1000)) : DEFAULT_RETRY_AFTER_S;
    return apiError("AzureUnavailable", { what, said, retryAfterSeconds: seconds });
  }
  return apiError("AzureError", { what, said });
}

/**
 * What a read route throws for an error met while reading `what`: an ApiError of ours as it is; Azure's failure (or
 * a read that gave up on one) as httpErrorOf answers it; a bug of ours (TypeError, …) unchanged, so that the error
 * handler answers 500 and logs it as an internal error, never 503 "try again".
 */
export function readFailureAnswer(err: unknown, what: string): unknown {
  if (err instanceof ApiError) return err;
  const failure = describeArmFailure(err);
  if (failure.kind === "programming") return err;
  return httpErrorOf(failure, what);
}
