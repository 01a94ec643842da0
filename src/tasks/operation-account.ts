// The account an operation of a task acts on, from its description: Clouddriver's `credentials`, or `account`.
import type { Task } from "./task.ts";

export function accountOfOperation(op: Pick<Task["operations"][number], "description">): string | undefined {
  const d = op.description as { credentials?: unknown; account?: unknown };
  return typeof d.credentials === "string" ? d.credentials : typeof d.account === "string" ? d.account : undefined;
}
