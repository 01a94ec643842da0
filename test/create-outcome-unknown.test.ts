// A submission whose create was sent to the store and not answered by its deadline may still commit: the service
// cannot say "nothing was done". It answers 503 TaskOutcomeUnknown with Retry-After and the clientRequestId to repeat
// the request with (the caller gave none: the service gave the request one before it sent the create), and the request
// repeated with it answers the task if the create committed, or creates it, once, if it did not. A real service on a
// real PostgreSQL whose tasks table the test locks, so that the create's statement waits in the database.
import t from "tap";
import pg from "pg";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** Far beyond anything the test waits for: only the request's deadline answers a held create. */
const UNBOUNDED_MS = "600000";
const DEADLINE_MS = "1500";
const CLIENT_PATIENCE_MS = 120_000;

t.setTimeout(240_000);

const { directUrl, name } = await linkedDatabase(t, "vmss_ops_outcome");
const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
await control.putScaleSet("demo-rg", "outcome", { capacity: 1, loadBalanced: false });

interface Answer {
  status: number;
  retryAfter: string | null;
  clientRequestIdHeader: string | null;
  body: { error?: string; message?: string; id?: string; clientRequestId?: string } | undefined;
}

async function submit(service: ChildService, desired: number, clientRequestId?: string): Promise<Answer> {
  const query = clientRequestId === undefined ? "" : `?clientRequestId=${encodeURIComponent(clientRequestId)}`;
  const res = await fetch(`${service.url}/azure/ops/resizeServerGroup${query}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      credentials: "demo",
      region: "eastus",
      serverGroupName: "outcome",
      capacity: { min: 0, max: 9, desired },
    }),
    signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    clientRequestIdHeader: res.headers.get("client-request-id"),
    body: text ? (JSON.parse(text) as Answer["body"]) : undefined,
  };
}

void t.test("a create held past its deadline: 503 TaskOutcomeUnknown, and its retry makes the task once", async (t) => {
  const service = await startChildService({
    SIMULATOR_URL: sim.url,
    SIMULATOR_CA_FILE,
    TASK_STORE: "postgres",
    DATABASE_URL: directUrl,
    TASK_STORE_CALL_TIMEOUT_MS: UNBOUNDED_MS,
    TASK_STORE_STATEMENT_TIMEOUT_MS: UNBOUNDED_MS,
    TASK_STORE_REQUEST_DEADLINE_MS: DEADLINE_MS,
    // No backlog read before the create: the create is the call the lock holds.
    TASK_BACKLOG_LIMIT: "0",
    LRO_POLL_INTERVAL_MS: "50",
    LRO_MAX_POLL_INTERVAL_MS: "50",
    ARM_BUDGET_SHARED: "false",
  });
  t.teardown(() => service.child.kill("SIGKILL"));
  const admin = new pg.Client({ connectionString: directUrl });
  await admin.connect();
  t.teardown(() => admin.end());
  // Reads pg_stat_activity outside admin's transaction: read inside it, the view is the snapshot taken at the
  // transaction's first read (stats_fetch_consistency), whose query texts may predate the create.
  const watcher = new pg.Client({ connectionString: directUrl });
  await watcher.connect();
  t.teardown(() => watcher.end());
  // A first submission with the store free: the process has its connections and statements ready. On a loaded machine
  // its 1.5 s deadline can pass before the store answers (503, nothing done or the task made): repeated by its
  // clientRequestId, as a client would, until taken.
  let warm: Answer | undefined;
  await waitFor(
    async () => {
      warm = await submit(service, 1, "warm");
      return warm.status === 202;
    },
    { what: "the warm-up submission to be taken", seen: () => warm },
  );
  await service.waitForTask(warm!.body!.id!);
  const tasksOf = async (clientRequestId: string) =>
    (await admin.query<{ id: string }>("SELECT id FROM tasks WHERE client_request_id = $1", [clientRequestId])).rows;
  /** The create's statement, waiting in the database for the lock. */
  const heldCreate = async () =>
    (
      await watcher.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE 'WITH input AS%'",
        [name],
      )
    ).rows;

  /** A submission without clientRequestId, its create held by the lock until the answer; the held statement's pid. */
  const heldSubmission = async (desired: number) => {
    await admin.query("BEGIN; LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE");
    // On a loaded machine a request may spend its deadline before its create is sent: answered TaskStoreUnavailable,
    // nothing sent. A client sends it again; so does the test, until a create is held.
    let answer: Answer | undefined;
    await waitFor(
      async () => {
        answer = await submit(service, desired);
        return answer.body?.error !== "TaskStoreUnavailable";
      },
      { what: "a submission whose create is sent", seen: () => answer },
    );
    answer = answer!;
    t.equal(answer.status, 503, "the submission is answered by its deadline, not held until the lock goes");
    t.equal(answer.retryAfter, "5", "with Retry-After");
    t.equal(answer.body?.error, "TaskOutcomeUnknown", "saying the task may have been created");
    t.match(answer.body?.message, /may have been created.*repeat the request with clientRequestId=/);
    const id = answer.body?.clientRequestId ?? "";
    t.match(id, /^generated-/, "with the clientRequestId the service gave the request, which had none");
    t.equal(answer.clientRequestIdHeader, id, "also in the Client-Request-Id header");
    const held = await waitFor(async () => (await heldCreate()).length === 1 && (await heldCreate())[0], {
      what: "the create's statement to wait in the database",
    });
    return { id, pid: held.pid };
  };

  // 1. The held create commits once the lock goes: the retry answers that task.
  const committed = await heldSubmission(2);
  await admin.query("COMMIT");
  const [made] = await waitFor(async () => (await tasksOf(committed.id)).length === 1 && tasksOf(committed.id), {
    what: "the held create to commit once the lock is gone",
  });
  const retried = await submit(service, 2, committed.id);
  t.equal(retried.status, 202, "the retry with that clientRequestId is taken");
  t.equal(retried.body?.id, made.id, "and answers the task the first request created");
  t.equal((await tasksOf(committed.id)).length, 1, "one task exists for the request");
  t.equal(((await service.waitForTask(made.id)) as { state: string }).state, "succeeded");

  // 2. The held create does not commit (the database cancels it): the retry creates the task, once.
  const canceled = await heldSubmission(3);
  await admin.query("SELECT pg_cancel_backend($1)", [canceled.pid]);
  await waitFor(async () => (await heldCreate()).length === 0, { what: "the held create to be canceled" });
  await admin.query("COMMIT");
  t.equal((await tasksOf(canceled.id)).length, 0, "nothing was created by the request answered unknown");
  const created = await submit(service, 3, canceled.id);
  t.equal(created.status, 202, "the retry with that clientRequestId creates the task");
  const again = await submit(service, 3, canceled.id);
  t.equal(again.body?.id, created.body?.id, "a further retry answers the same task");
  t.same(
    (await tasksOf(canceled.id)).map((r) => r.id),
    [created.body?.id],
    "one task exists for the request",
  );
  t.equal(((await service.waitForTask(created.body!.id!)) as { state: string }).state, "succeeded");
  service.child.kill("SIGTERM");
  await service.exited;
});
