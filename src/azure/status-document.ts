// Azure's operation-status document (the Azure-AsyncOperation URL's body: `{ startTime, endTime?, status, error? }`),
// as the long-running writes read it: how an operation ended (long-running.ts) and how long Azure took
// (write-durations.ts).

/** What an operation-status document may hold: each field as Azure sent it, checked where it is read. */
export interface StatusDocument {
  status?: unknown;
  startTime?: unknown;
  endTime?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** An operation-status body's fields, where it is one (a JSON object with a status); undefined otherwise. */
export function statusDocumentOf(bodyAsText: string | undefined): StatusDocument | undefined {
  if (!bodyAsText || !bodyAsText.includes('"status"')) return undefined;
  try {
    const body: unknown = JSON.parse(bodyAsText);
    return typeof body === "object" && body !== null ? body : undefined;
  } catch {
    return undefined;
  }
}
