// A request is answered within its deadline (TASK_STORE_REQUEST_DEADLINE_MS from its arrival), however many store
// calls it makes and however long each may take by itself: a real service on a real PostgreSQL whose tasks table the
// test locks, so that every read of it waits. Each call's own bound (TASK_STORE_CALL_TIMEOUT_MS) and the database's
// (TASK_STORE_STATEMENT_TIMEOUT_MS) are set far beyond the test: only the request's deadline can answer it, 503
// TaskStoreUnavailable with Retry-After. How soon, under a store answering slowly, is the benchmark's (storeLatency).
import t from "tap";
import pg from "pg";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { RequestDeadlineError, StoreHealth, storeOutageReason, watchStoreOutages } from "../src/tasks/store-outage.ts";
import { withRequestDeadline } from "../src/tasks/request-deadline.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** Far beyond anything the test waits for: a call's bound and a statement's never answer a request here. */
const UNBOUNDED_MS = "600000";
/** Far less than a client's patience (below), so that the answer the test waits for can only be the deadline's. */
const DEADLINE_MS = "1500";
const CLIENT_PATIENCE_MS = 120_000;

t.setTimeout(240_000);

void t.test(
  "a store call made past its request's deadline is not made; one made in time is bounded by it",
  async (t) => {
    let calls = 0;
    const never = new Promise<never>(() => {});
    // As PostgreSQL's store: its calls wait for a server.
    const slow = Object.assign(new MemoryTaskStore(10), {
      get: () => (calls++, never),
      boundedByRequestDeadlines: true,
    });
    const health = new StoreHealth();
    const store = watchStoreOutages(slow, health, { callTimeoutMs: 600_000 });
    const late = await withRequestDeadline(
      performance.now() - 1,
      () => false,
      () => store.get("t1").catch((e: unknown) => e),
    );
    t.equal(calls, 0, "past the deadline: the store is not called");
    t.equal(storeOutageReason(late), "RequestDeadline", "and the request is answered an outage");
    t.equal(((late as Error).cause as RequestDeadlineError).sent, false, "nothing was sent");
    t.notOk(health.down, "a call never made says nothing of the store");
    const cut = await withRequestDeadline(
      performance.now() + 20,
      () => false,
      () => store.get("t1").catch((e: unknown) => e),
    );
    t.equal(calls, 1, "in time: the store is called");
    t.equal(storeOutageReason(cut), "RequestDeadline", "and cut at the request's deadline, not the call's bound");
    t.equal(((cut as Error).cause as RequestDeadlineError).sent, true, "as a call that was sent");
    const answered = await withRequestDeadline(
      performance.now() - 1,
      () => true,
      () => store.list({ limit: 1 }),
    );
    t.ok(answered, "a request already answered: its later calls are not bounded by its deadline");
    const runner = await withRequestDeadline(
      performance.now() - 1,
      () => false,
      () => store.claim("r", 1000, 1),
    );
    t.same(runner, [], "the runner's calls (a claim woken by a submission) are never a request's");
    const inProcess = watchStoreOutages(new MemoryTaskStore(10), new StoreHealth(), { callTimeoutMs: 600_000 });
    const atOnce = await withRequestDeadline(
      performance.now() - 1,
      () => false,
      () => inProcess.list({ limit: 1 }),
    );
    t.ok(atOnce, "a store that answers in-process at once is not refused for a request's deadline");
  },
);

const { directUrl } = await linkedDatabase(t, "vmss_ops_deadline");
const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
await control.putScaleSet("demo-rg", "deadline", { capacity: 1, loadBalanced: false });

/** One request as a patient client sends it: what it got, once it got it. */
async function ask(service: ChildService, method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (text ? JSON.parse(text) : undefined) as { error?: string; message?: string; id?: string } | undefined,
  };
}

void t.test(
  "every request is answered by its deadline while the store holds its reads: 503 with Retry-After",
  async (t) => {
    const service = await startChildService({
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "postgres",
      DATABASE_URL: directUrl,
      TASK_STORE_CALL_TIMEOUT_MS: UNBOUNDED_MS,
      TASK_STORE_STATEMENT_TIMEOUT_MS: UNBOUNDED_MS,
      TASK_STORE_REQUEST_DEADLINE_MS: DEADLINE_MS,
      LRO_POLL_INTERVAL_MS: "50",
      LRO_MAX_POLL_INTERVAL_MS: "50",
      ARM_BUDGET_SHARED: "false",
    });
    t.teardown(() => service.child.kill("SIGKILL"));
    // A cold replica on a loaded machine may miss the deadline on its first submission (503 with Retry-After): the
    // clientRequestId makes a repeat safe, and this one only sets the scene.
    let last: Awaited<ReturnType<typeof ask>> | undefined;
    const submitted = await waitFor(
      async () => {
        last = await ask(service, "POST", "/azure/ops/resizeServerGroup?clientRequestId=deadline-1", {
          credentials: "demo",
          region: "eastus",
          serverGroupName: "deadline",
          capacity: { min: 0, max: 9, desired: 2 },
        });
        return last.status === 202 && last;
      },
      { what: "the first submission accepted", timeoutMs: 60_000, intervalMs: 200, seen: () => last },
    );
    const id = submitted.body!.id!;
    t.equal(((await service.waitForTask(id)) as { state: string }).state, "succeeded");

    const admin = new pg.Client({ connectionString: directUrl });
    await admin.connect();
    t.teardown(() => admin.end());
    // Every read and write of the tasks table waits for this lock, however long: nothing in the service times it out
    // but the request's deadline.
    await admin.query("BEGIN; LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE");
    const answers = [
      await ask(service, "GET", `/task/${id}`),
      await ask(service, "GET", "/task?limit=5"),
      await ask(service, "GET", `/task/${id}`),
    ];
    for (const [i, a] of answers.entries()) {
      t.equal(a.status, 503, `request ${i} is answered 503, not held until the lock goes`);
      t.equal(a.retryAfter, "5", "with Retry-After");
      t.equal(a.body?.error, "TaskStoreUnavailable");
      t.match(a.body?.message, /RequestDeadline/, "naming the request's deadline");
    }
    await admin.query("ROLLBACK");
    await waitFor(async () => (await ask(service, "GET", `/task/${id}`)).status === 200, {
      what: "the task to be read once the lock is gone",
    });
    service.child.kill("SIGTERM");
    await service.exited;
  },
);
