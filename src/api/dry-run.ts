// ?dryRun=true: each operation read and planned as its first attempt would be, against the state just read (an
// operation after the first is planned on the scale set as it is now, not as the ones before it would leave it).
// Nothing is written and no task is stored.
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import type { RetryConfig } from "../azure/retry-policy.ts";
import { planWithoutWriting } from "../azure/observe.ts";
import { locate } from "../operations/locate.ts";
import type { OperationName } from "../operations/operation-names.ts";
import { describePlannedWrite } from "./dry-run-writes.ts";
import type { AnyOperation, LocatedDescription, TaskOrigin } from "../operations/operation.ts";
import type { HistoryEntry, OperationRequest } from "../tasks/task.ts";

/**
 * A dry run has no task: its prepare finds no scale set made for it (none is), and its plan names the task as a
 * person reads it ("mark vmss-ops.repairs-suspended-by=(the task)"), the name it never writes. A run always has a
 * clientRequestId (one is given to a request without), which a create records: "(the request)" stands for it.
 */
const DRY_RUN_ORIGIN: TaskOrigin = { taskId: "(the task)", clientRequestId: "(the request)" };

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
      const op = operations.get(name)!;
      const located = description as LocatedDescription;
      // A create is located by its cluster until prepare names the scale set, as in a run.
      const target = locate(accounts, op, located);
      if (!target.ok) throw new Error("checked before: the description locates");
      const where = {
        operation: name,
        account: target.ref.account,
        region: target.ref.region,
        resourceGroup: target.ref.resourceGroup,
        serverGroupName: target.ref.name,
      };
      const preparation: string[] = [];
      try {
        // prepare only reads (what Azure lists, the source to copy): it chooses the name a run would choose now, and
        // says what it would add to a balancer instead of adding it.
        const prepared = op.prepare
          ? await op.prepare(located, {
              accounts,
              origin: DRY_RUN_ORIGIN,
              log: (line) => preparation.push(line),
              dryRun: true,
            })
          : undefined;
        const ref = prepared ? { ...target.ref, name: prepared.serverGroupName } : target.ref;
        where.serverGroupName = ref.name;
        const planner = op.planner(located, ref, { origin: DRY_RUN_ORIGIN, ...(prepared ? { prepared } : {}) });
        const { planned, write, ...plan } = await planWithoutWriting(accounts.gateway(ref), planner, { retry });
        const found = preparation.length > 0 ? { preparation } : {};
        // A write is planned with what it was planned on: its requests, its changes, and what may follow it.
        if (!planned || !write) return { ...where, ...found, ...plan };
        const { requests, changes, later } = await describePlannedWrite(accounts, name as OperationName, ref, planned);
        return { ...where, ...found, ...plan, write: { ...write, requests, changes }, later };
      } catch (err) {
        const f = describeArmFailure(err);
        // A bug of ours is not a problem of the plan: the error handler answers 500 and logs it.
        if (f.kind === "programming") throw err;
        return {
          ...where,
          ...(preparation.length > 0 ? { preparation } : {}),
          read: {},
          problem: { type: "EXCEPTION" as const, operation: name, cause: f.code ?? f.kind, message: f.message },
        };
      }
    }),
  );
  return {
    kind: "dryRun" as const,
    dryRun: true as const,
    note: "Nothing was written and no task was stored. A run reads again and plans again on every attempt; a write after the first (a rollout) is planned on the read that follows it.",
    ...(selection ? { selection: selection.map((h) => h.status) } : {}),
    operations: planned,
  };
}
