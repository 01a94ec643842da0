// A store that stalls is an outage, answered as one: a real service on a real PostgreSQL behind a link that the test
// slows (every packet held for longer than a store call may take) or black-holes (nothing answered, nothing refused).
// Every store call has a bound (TASK_STORE_CALL_TIMEOUT_MS, and PostgreSQL's statement_timeout): a client gets 503
// TaskStoreUnavailable with Retry-After within it, /ready says so, and once the link is well again the service is too.
import t from "tap";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { StoreHealth, storeOutageReason, watchStoreOutages } from "../src/tasks/store-outage.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

void t.test("a store call that does not settle within its bound is an outage, like a refused connection", async (t) => {
  const never = new Promise<never>(() => {});
  const stalled = Object.assign(new MemoryTaskStore(10), { get: () => never });
  const health = new StoreHealth();
  const store = watchStoreOutages(stalled, health, { callTimeoutMs: 20 });
  const err = await store.get("t1").catch((e: unknown) => e);
  t.equal(storeOutageReason(err), "StoreCallTimeout", "classified as an outage");
  t.match((err as Error).message, /get did not answer within 20 ms/);
  t.ok(health.down, "and the store is known to be down at once");
  t.ok(await store.list({ limit: 1 }), "a call that answers");
  t.notOk(health.down, "says it is back");
  const coded = (code: string) => Object.assign(new Error("m"), { code });
  t.equal(storeOutageReason(coded("57014")), "StatementTimeout", "PostgreSQL's statement_timeout");
  t.equal(storeOutageReason(new Error("Query read timeout")), "QueryTimeout", "pg's query_timeout");
  // node:sqlite's errors, as it raises them: errcode is SQLite's (extended) result code.
  const sqlite = (errcode: number) => Object.assign(new Error("m"), { code: "ERR_SQLITE_ERROR", errcode });
  t.equal(storeOutageReason(sqlite(13)), "SQLITE_FULL", "disk full");
  t.equal(storeOutageReason(sqlite(10 | (3 << 8))), "SQLITE_IOERR", "an I/O error (SQLITE_IOERR_WRITE)");
  t.equal(storeOutageReason(sqlite(8)), "SQLITE_READONLY", "a read-only database");
  t.equal(storeOutageReason(sqlite(5)), "SQLITE_BUSY", "busy past its timeout");
  t.equal(storeOutageReason(sqlite(19)), undefined, "a constraint violation stays a bug");
  t.equal(storeOutageReason(sqlite(1)), undefined, "so does an SQL error");
});

/** Generous for a loaded machine, where a healthy store call can take a second: the packets are held for longer. */
const CALL_TIMEOUT_MS = 3000;
const HELD_MS: [number, number] = [4000, 5000];
/** What a client here waits at most: far more than the bound, far less than "hangs". */
const CLIENT_PATIENCE_MS = 30_000;

t.setTimeout(240_000);

const { linkedUrl: databaseUrl, link } = await linkedDatabase(t, "vmss_ops_stall");

const sim = await startSimulator({ port: 0, writeDurationMs: 200, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
await control.putScaleSet("demo-rg", "stall", { capacity: 1, loadBalanced: false });

/** One request, as a client with CLIENT_PATIENCE_MS of patience sends it: what it got, and how long it waited. */
async function ask(service: ChildService, method: string, path: string, body?: unknown) {
  const started = Date.now();
  try {
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
      waitedMs: Date.now() - started,
    };
  } catch {
    return { status: 0, retryAfter: null, body: undefined, waitedMs: Date.now() - started };
  }
}

/**
 * A submission as a client makes it: sent again, with the same clientRequestId, while it is answered 503 (a fresh
 * process on a loaded machine can take longer than the bound for its first store calls: shed, as designed).
 */
async function submit(service: ChildService, id: string, body: unknown) {
  let answer: Awaited<ReturnType<typeof ask>> | undefined;
  return waitFor(
    async () => {
      answer = await ask(service, "POST", `/azure/ops/resizeServerGroup?clientRequestId=${id}`, body);
      return answer.status !== 503 && answer;
    },
    { what: `submission ${id} to be answered other than 503`, intervalMs: 500, seen: () => answer },
  );
}

const resize = (desired: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: "stall",
  capacity: { min: 0, max: 9, desired },
});

void t.test(
  "a slow store and a silent one: 503 with Retry-After within the bound, /ready false, then well",
  async (t) => {
    const service = await startChildService({
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "postgres",
      DATABASE_URL: databaseUrl,
      TASK_STORE_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
      TASK_STORE_STATEMENT_TIMEOUT_MS: String(CALL_TIMEOUT_MS / 2),
      TASK_CLAIM_INTERVAL_MS: "200",
      // A claim that ran past the bound may still have leased tasks here: they wait out this lease.
      TASK_LEASE_MS: "3000",
      LRO_POLL_INTERVAL_MS: "50",
      LRO_MAX_POLL_INTERVAL_MS: "50",
      ARM_BUDGET_SHARED: "false",
      READY_CACHE_MS: "60000",
    });
    t.teardown(() => service.child.kill("SIGKILL"));
    const before = await submit(service, "stall-before", resize(2));
    t.equal(before.status, 202);
    t.equal(((await service.waitForTask(before.body!.id!)) as { state: string }).state, "succeeded");
    await waitFor(async () => (await ask(service, "GET", "/ready")).status === 200, { what: "ready" });

    const faults = [
      [`every packet held ${HELD_MS.join("-")} ms`, () => link.delay(...HELD_MS)],
      ["black-holed", () => link.blackHole()],
    ] as const;
    for (const [n, [fault, spoil]] of faults.entries()) {
      spoil();
      const answers = [
        await ask(service, "POST", `/azure/ops/resizeServerGroup?clientRequestId=stall-${n}`, resize(3)),
        await ask(service, "GET", `/task/${before.body!.id}`),
        await ask(service, "GET", "/task?limit=5"),
      ];
      for (const [i, a] of answers.entries()) {
        t.equal(a.status, 503, `${fault}: request ${i} answered 503, not left waiting (${a.waitedMs} ms)`);
        t.equal(a.retryAfter, "5", "with Retry-After");
        // A submission whose create was sent before the deadline may still commit: it cannot say "nothing was done".
        t.match(a.body?.error, i === 0 ? /^(TaskStoreUnavailable|TaskOutcomeUnknown)$/ : /^TaskStoreUnavailable$/);
      }
      t.ok(
        answers.every((a) => a.waitedMs < CLIENT_PATIENCE_MS / 2),
        `${fault}: answered within the bound (${answers.map((a) => a.waitedMs).join(", ")} ms)`,
      );
      const ready = await ask(service, "GET", "/ready");
      t.equal(ready.status, 503, `${fault}: /ready not ready`);
      t.comment(`${fault}: ${answers.map((a) => `${a.status} in ${a.waitedMs} ms`).join("; ")}`);

      link.delay(0, 0);
      link.heal();
      const healedAt = Date.now();
      await waitFor(async () => (await ask(service, "GET", "/ready")).status === 200, {
        what: `${fault}: ready again`,
      });
      const after = await submit(service, `stall-after-${n}`, resize(4 + n));
      t.equal(after.status, 202, `${fault}: submissions are taken again`);
      t.equal(((await service.waitForTask(after.body!.id!)) as { state: string }).state, "succeeded");
      t.comment(`${fault}: ready again and a task done ${Date.now() - healedAt} ms after the link was well`);
    }
    service.child.kill("SIGTERM");
    await service.exited;
  },
);
