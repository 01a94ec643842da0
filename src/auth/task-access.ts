// Which accounts a task touches, so that a task is read only by those who may use all of them.
import type { Task } from "../tasks/task.ts";
import { mayUseAccount, type Principal } from "./principal.ts";
import { accountOfOperation } from "../tasks/operation-account.ts";

export function accountsOfTask(task: Pick<Task, "operations">): string[] {
  const names = new Set<string>();
  for (const op of task.operations) {
    const name = accountOfOperation(op);
    if (name) names.add(name);
  }
  return [...names];
}

/** The first account of the task the principal may not read, if any. */
export function forbiddenTaskAccount(principal: Principal, task: Pick<Task, "operations">): string | undefined {
  return forbiddenAccount(principal, accountsOfTask(task));
}

/** The first of these accounts (a task's, from accountsOfTask) the principal may not read, if any. */
export function forbiddenAccount(principal: Principal, accounts: readonly string[]): string | undefined {
  return accounts.find((a) => !mayUseAccount(principal, a));
}
