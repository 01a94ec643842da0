// Page cursors for GET /task: an opaque token for a task's position in creation order, which never changes.

export function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString("base64url");
}

/** An unreadable cursor reads as none (the first page). */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (!cursor) return undefined;
  const n = Number(Buffer.from(cursor, "base64url").toString());
  return Number.isSafeInteger(n) ? n : undefined;
}
