// A replica cut off from its store stops acting for a task at its lease's local deadline. Two real replicas share a
// real PostgreSQL; replica A reaches it through a link the test black-holes (packets dropped, not refused: no call
// fails, none is answered) while A backs off before a write of its task. Replica B takes the task over once the
// lease is gone, finishes it, and runs a newer task on the same scale set. The simulator's call log, which names the
// replica behind each call, must show nothing from A once B began, and the newer task's capacity must stand.
import t from "tap";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { leaseDeadline, LeaseExpiredError, TaskLease } from "../src/tasks/lease-deadline.ts";
import { LeaseLostError } from "../src/tasks/task-journal.ts";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

void t.test(
  "a lease's local deadline: from when the claim was sent, less a tenth for drift; moved on by renewals",
  (t) => {
    t.equal(leaseDeadline(1000, 3000), 1000 + 3000 - 300);
    let now = 0;
    const expired: LeaseExpiredError[] = [];
    const lease = new TaskLease(
      "t1",
      leaseDeadline(0, 3000),
      (e) => expired.push(e),
      () => now,
    );
    t.teardown(() => lease.stop());
    now = 2699;
    t.ok(lease.live);
    t.doesNotThrow(() => lease.check(), "before the deadline: calls go");
    lease.renewed(1000, 3000);
    t.equal(lease.deadline, 3700, "a renewal sent at 1000 moves the deadline to 3700");
    lease.renewed(500, 3000);
    t.equal(lease.deadline, 3700, "an older renewal answered late never moves it back");
    now = 3700;
    t.notOk(lease.live);
    t.throws(() => lease.check(), LeaseExpiredError, "at the deadline: no call goes, timer or not");
    t.equal(expired.length, 1, "and the run is stopped, once");
    t.ok(expired[0] instanceof LeaseLostError, "as a lost lease: the task is left to whoever claims it next");
    lease.renewed(4000, 3000);
    t.notOk(lease.live, "a renewal answered after the deadline does not bring it back");
    t.throws(() => lease.check(), LeaseExpiredError);
    t.equal(expired.length, 1);
    t.end();
  },
);

const LEASE_MS = 3000;
/** A's throttled write waits this long: far past its lease, so it would act after B took the task over. */
const RETRY_AFTER_S = 20;

t.setTimeout(240_000);

const { directUrl, linkedUrl, link } = await linkedDatabase(t, "vmss_ops_lease");

const sim = await startSimulator({ port: 0, writeDurationMs: 300, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
const NAME = "lease-held";
await control.putScaleSet("demo-rg", NAME, { capacity: 1, loadBalanced: false });

const env = {
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_STORE: "postgres",
  TASK_LEASE_MS: String(LEASE_MS),
  TASK_CLAIM_INTERVAL_MS: "200",
  LRO_POLL_INTERVAL_MS: "50",
  LRO_MAX_POLL_INTERVAL_MS: "50",
  RETRY_BUSY_POLL_INTERVAL_MS: "50",
  LOG_LEVEL: "warn",
  // The ARM budget in this process: one kept in the black-holed database would hold every ARM call of A, and hide
  // what the runner itself does.
  ARM_BUDGET_SHARED: "false",
  // Not what this test is about (test/store-stall.test.ts is): a loaded machine must not turn a slow answer into a 503.
  TASK_STORE_CALL_TIMEOUT_MS: "20000",
  TASK_STORE_REQUEST_DEADLINE_MS: "20000",
  // Nor is shedding: a loaded machine holds a replica's event loop up now and then.
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
};
const resize = (desired: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: NAME,
  capacity: { min: 0, max: 9, desired },
});
/** What the tests read of a task. */
interface TaskBody {
  id: string;
  state: string;
  history: { status: string }[];
}
/**
 * Submits until the answer is 202 (a loaded machine may answer 503 with Retry-After; the clientRequestId makes the
 * repeat safe: it gets the task the first made), and returns the task's id. No body is read whose status is not 202.
 */
async function submit(replica: ChildService, clientRequestId: string, desired: number): Promise<string> {
  let last: { status: number; body?: unknown } | undefined;
  const accepted = await waitFor(
    async () => {
      last = await replica.api<TaskBody>(
        "POST",
        `/azure/ops/resizeServerGroup?clientRequestId=${clientRequestId}`,
        resize(desired),
      );
      return last.status === 202 && (last.body as TaskBody);
    },
    { what: `${clientRequestId} accepted`, timeoutMs: 60_000, intervalMs: 200, seen: () => last },
  );
  return accepted.id;
}
/** The task's history, once a read of it is answered 200 (undefined until then). */
async function historyOf(replica: ChildService, id: string): Promise<{ status: string }[] | undefined> {
  const read = await replica.api<TaskBody>("GET", `/task/${id}`);
  return read.status === 200 ? read.body?.history : undefined;
}
const calls = async (replica: string) =>
  (await control.calls()).filter((c) => c.path.toLowerCase().endsWith(`/${NAME}`) && c.userAgent?.includes(replica));

void t.test(
  "store black-holed mid-task: the cut-off replica stops at its deadline, the other completes the task",
  async (t) => {
    const a = await startChildService({ ...env, DATABASE_URL: linkedUrl, REPLICA_ID: "lease-a" });
    t.teardown(() => a.child.kill("SIGKILL"));
    // A's first write is throttled: it backs off, holding nothing the store must answer for.
    await control.addFault({
      method: "PATCH",
      pathContains: NAME,
      status: 429,
      code: "TooManyRequests",
      count: 1,
      retryAfterSeconds: RETRY_AFTER_S,
    });
    const olderId = await submit(a, "lease-older", 3);
    await waitFor(async () => (await historyOf(a, olderId))?.some((h) => /retrying in/.test(h.status)), {
      what: "A's backoff, stored",
    });
    link.blackHole();
    const cutAt = Date.now();

    const b = await startChildService({ ...env, DATABASE_URL: directUrl, REPLICA_ID: "lease-b" });
    t.teardown(() => b.child.kill("SIGKILL"));
    const olderDone = (await b.waitForTask(olderId, 60_000)) as TaskBody;
    t.equal(olderDone.state, "succeeded", "B took the task over and completed it");
    t.comment(`the task done by B ${Date.now() - cutAt} ms after A's store link was cut (lease ${LEASE_MS} ms)`);
    const newerId = await submit(b, "lease-newer", 5);
    t.equal(
      ((await b.waitForTask(newerId, 60_000)) as TaskBody).state,
      "succeeded",
      "a newer task on the scale set, after it",
    );
    const bFirst = (await calls("lease-b"))[0].time;

    // A says when it stopped; today's runner would instead go on once its backoff ends, and write.
    await waitFor(
      async () =>
        a.output().includes("lease ended by this replica's clock") ||
        (await calls("lease-a")).some((c) => c.method === "PATCH" && c.status === 200 && c.time >= bFirst),
      { what: "A to stop at its deadline (or to write after B began)", timeoutMs: (RETRY_AFTER_S + 40) * 1000 },
    );
    const late = (await calls("lease-a")).filter((c) => c.time >= bFirst);
    t.same(
      late.map((c) => `${c.method} ${c.status}`),
      [],
      "A sent nothing for the task once B had begun (its lease had ended before B could claim the task)",
    );
    t.match(a.output(), /lease ended by this replica's clock/, "A's log says why it stopped");
    t.equal(
      ((await control.getScaleSet("demo-rg", NAME)).vmss as { sku?: { capacity?: number } }).sku?.capacity,
      5,
      "the newer task's capacity stands: the older desired state was not applied again",
    );

    // Healed: A answers from the store again, and the tasks are as B left them.
    link.heal();
    await waitFor(async () => (await a.api("GET", "/ready")).status === 200, { what: "A ready again" });
    const readByA = await a.api<TaskBody>("GET", `/task/${olderId}`);
    t.equal(readByA.status, 200, "A reads the task again");
    if (readByA.status === 200) t.equal(readByA.body.state, "succeeded");
    t.same(
      (await calls("lease-a")).filter((c) => c.time >= bFirst),
      [],
      "and still nothing from A",
    );
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    await Promise.all([a.exited, b.exited]);
  },
);
