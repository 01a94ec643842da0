// A held read (GET /task/{id}?wait=N) is answered within one bound, max(N, TASK_STORE_REQUEST_DEADLINE_MS) from its
// arrival, however its store behaves during and after the hold: a real service on a real PostgreSQL behind a link the
// test black-holes once the hold is under way (its store poll has read the task's revision). Each store call's own
// bound (TASK_STORE_CALL_TIMEOUT_MS) and the database's are set far beyond the test, so that only the held read's
// deadline can answer it: with the task as the store last confirmed it, when that was within the request deadline's
// span, or else 503 TaskStoreUnavailable with Retry-After. Before, the read after the hold waited for the store's own
// bound (3 s by default: a 3 s hold was answered past a client's 5 s).
import t from "tap";
import pg from "pg";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** Far beyond anything the test waits for: a call's bound and a statement's never answer a request here. */
const UNBOUNDED_MS = "600000";
const DEADLINE_MS = 1500;
/** How much later than its bound an answer may come on a loaded machine (timers, the event loop, the network). */
const SLACK_MS = 2500;
/** Far beyond every bound here: a request the service holds past its deadline waits until this, and fails. */
const CLIENT_PATIENCE_MS = 60_000;

t.setTimeout(240_000);

const { directUrl, linkedUrl, link } = await linkedDatabase(t, "vmss_ops_held");
// Writes that outlast the test: the tasks stay running, and a held read waits its full time.
const sim = await startSimulator({ port: 0, writeDurationMs: 600_000, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

const service = await startChildService({
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_STORE: "postgres",
  DATABASE_URL: linkedUrl,
  TASK_STORE_CALL_TIMEOUT_MS: UNBOUNDED_MS,
  TASK_STORE_STATEMENT_TIMEOUT_MS: UNBOUNDED_MS,
  TASK_STORE_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
  // The runner stays off the store while its task waits for Azure: no renewal during the test.
  TASK_LEASE_MS: UNBOUNDED_MS,
  TASK_WAIT_POLL_MS: "100",
  LRO_POLL_INTERVAL_MS: "50",
  LRO_MAX_POLL_INTERVAL_MS: "50",
  ARM_BUDGET_SHARED: "false",
  // Not what this test is about: a loaded machine holds a replica's event loop up now and then.
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
  LOG_LEVEL: "warn",
});
t.teardown(() => service.child.kill("SIGKILL"));

const admin = new pg.Client({ connectionString: directUrl });
await admin.connect();
t.teardown(() => admin.end());

/** A task left running (its write never ends in the test), submitted until accepted; its id. */
async function runningTask(name: string): Promise<string> {
  await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
  let last: { status: number; body: unknown } | undefined;
  const accepted = await waitFor(
    async () => {
      last = await service.api<{ id: string }>("POST", `/azure/ops/resizeServerGroup?clientRequestId=${name}`, {
        credentials: "demo",
        region: "eastus",
        serverGroupName: name,
        capacity: { min: 0, max: 9, desired: 2 },
      });
      return last.status === 202 && (last.body as { id: string });
    },
    { what: `${name} accepted`, timeoutMs: 60_000, intervalMs: 200, seen: () => last },
  );
  const { rows } = await admin.query<{ state: string }>("SELECT state FROM tasks WHERE id = $1", [accepted.id]);
  t.not(rows[0]?.state, "succeeded", `${name} has not ended`);
  return accepted.id;
}

/**
 * GET /task/{id}?wait=<waitS>, the store link black-holed once the hold's store poll has read the task's revision
 * (a revision read of it started after the request was sent: the route itself reads the task, not its revision).
 */
async function heldReadCutMidHold(id: string, waitS: number) {
  // A cold replica on a loaded machine may answer its first requests 503 at the deadline: tried until one is held.
  for (;;) {
    const { rows } = await admin.query<{ now: Date }>("SELECT clock_timestamp() AS now");
    const sentAt = performance.now();
    let settled = false;
    const answer = fetch(`${service.url}/task/${id}?wait=${waitS}`, {
      signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
    })
      .then(async (res) => ({
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        body: (await res.json()) as { error?: string; message?: string; state?: string; id?: string },
        tookMs: performance.now() - sentAt,
      }))
      .catch((err: unknown) => ({ failed: String(err), tookMs: performance.now() - sentAt }))
      .finally(() => (settled = true));
    const held = await waitFor(
      async () => {
        if (settled) return "answered";
        const polled = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
             AND query LIKE 'SELECT id, revision, state FROM%' AND query_start > $1`,
          [rows[0].now],
        );
        return polled.rowCount! > 0 && "polled";
      },
      { what: "the hold's store poll", timeoutMs: 30_000 },
    );
    if (held === "answered") {
      const early = await answer;
      t.comment(`answered before the hold's poll: ${JSON.stringify(early)}; again`);
      continue;
    }
    link.blackHole();
    const got = await answer;
    link.heal();
    // The store answers again: the next test starts from a service that reads.
    await waitFor(async () => (await service.api("GET", "/task?limit=1")).status === 200, {
      what: "a read answered once the link is healed",
    });
    return got;
  }
}

void t.test("the store goes silent during a long hold: 503 with Retry-After by the hold's end", async (t) => {
  const id = await runningTask("held-long");
  const waitS = 8;
  const got = await heldReadCutMidHold(id, waitS);
  t.notOk("failed" in got && got.failed, "answered before the client gave up");
  t.ok(
    got.tookMs < Math.max(waitS * 1000, DEADLINE_MS) + SLACK_MS,
    `answered by its deadline, the hold's end (${Math.round(got.tookMs)} ms)`,
  );
  if (!("status" in got)) return;
  // The store last confirmed the task at the cut, seconds before the hold ended: too old to answer as it is now.
  t.equal(got.status, 503, JSON.stringify(got.body));
  t.equal(got.retryAfter, "5", "with Retry-After");
  t.equal(got.body.error, "TaskStoreUnavailable");
  t.match(got.body.message, /RequestDeadline/, "naming the request's deadline");
});

void t.test("the store goes silent during a short hold: the task as last confirmed, or 503", async (t) => {
  const id = await runningTask("held-short");
  const waitS = 1;
  const got = await heldReadCutMidHold(id, waitS);
  t.notOk("failed" in got && got.failed, "answered before the client gave up");
  t.ok(
    got.tookMs < Math.max(waitS * 1000, DEADLINE_MS) + SLACK_MS,
    `answered by its deadline (${Math.round(got.tookMs)} ms)`,
  );
  if (!("status" in got)) return;
  // Confirmed by the store within the deadline's span before the hold ended (the route's read, the first polls): the
  // task as it was then. On a machine loaded enough to make that older, the read after the hold is cut at the deadline.
  if (got.status === 200) {
    t.equal(got.body.id, id);
    // Queued or running, as the store last said (on a loaded machine the replica may not have claimed it yet).
    t.ok(["queued", "running"].includes(got.body.state ?? ""), `not ended, as it was (${got.body.state})`);
  } else {
    t.equal(got.status, 503, JSON.stringify(got.body));
    t.equal(got.retryAfter, "5", "with Retry-After");
    t.equal(got.body.error, "TaskStoreUnavailable");
  }
});

void t.test("the service closes", async () => {
  service.child.kill("SIGTERM");
  await service.exited;
});
