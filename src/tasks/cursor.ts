// Page cursors for GET /task: an opaque token for a task's position in creation order, which never changes.

export function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString("base64url");
}

/** The position a cursor names; undefined for none, and for one that does not decode (the API refuses those first). */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (!cursor) return undefined;
  const text = Buffer.from(cursor, "base64url").toString();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && encodeCursor(n) === cursor ? n : undefined;
}

/** A cursor this service could have given: the encoding of a position, exactly. */
export function isCursor(cursor: string): boolean {
  return decodeCursor(cursor) !== undefined;
}
