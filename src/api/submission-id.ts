// Every submission carries a clientRequestId: the caller's, or one given to it here before its task is created. When
// the store cannot say whether the create committed (503 TaskOutcomeUnknown), the answer names it, and the request
// repeated with it gets the task if it was created, or creates it, once.
import { newId } from "../tasks/ids.ts";

/** The caller's clientRequestId, or a new one: `generated-<uuid>`, printable ASCII as the query parameter asks. */
export function submissionRequestId(given: string | undefined): string {
  return given ?? `generated-${newId()}`;
}
