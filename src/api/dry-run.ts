// ?dryRun=true: each operation read and planned as its first attempt would be, against the state just read (an
// operation after the first is planned on the scale set as it is now, not as the ones before it would leave it).
// Nothing is written and no task is stored.
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import type { RetryConfig } from "../azure/retry-policy.ts";
import { planWithoutWriting } from "../azure/observe.ts";
import type { AnyOperation, LocatedDescription } from "../operations/operation.ts";
import type { HistoryEntry, OperationRequest } from "../tasks/task.ts";

/** `retry`: the read's retry profile (readRetry): a read met by a transient failure is read again, as a run's would be. */
export async function dryRun(
  accounts: AccountRegistry,
  operations: ReadonlyMap<string, AnyOperation>,
  requests: OperationRequest[],
  retry: RetryConfig,
  selection?: HistoryEntry[],
) {
  const planned = await Promise.all(
    requests.map(async ({ name, description }) => {
      const resolved = accounts.resolve(description as LocatedDescription);
      if (!resolved.ok) throw new Error("checked before: the description resolves");
      const ref = resolved.ref;
      const where = {
        operation: name,
        account: ref.account,
        region: ref.region,
        resourceGroup: ref.resourceGroup,
        serverGroupName: ref.name,
      };
      try {
        const plan = await planWithoutWriting(accounts.gateway(ref), operations.get(name)!.planner(description, ref), {
          retry,
        });
        return { ...where, ...plan };
      } catch (err) {
        const f = describeArmFailure(err);
        // A bug of ours is not a problem of the plan: the error handler answers 500 and logs it.
        if (f.kind === "programming") throw err;
        return {
          ...where,
          read: {},
          problem: { type: "EXCEPTION" as const, operation: name, cause: f.code ?? f.kind, message: f.message },
        };
      }
    }),
  );
  return {
    dryRun: true as const,
    note: "Nothing was written and no task was stored. A run reads again and plans again on every attempt; a write after the first (a rollout) is planned on the read that follows it.",
    ...(selection ? { selection: selection.map((h) => h.status) } : {}),
    operations: planned,
  };
}
