// Two replicas on one PostgreSQL database; replica A reaches Azure (the simulator) through a link that the test cuts:
// black-holed, it accepts connections and answers nothing. A's link to the store stays up, so A could renew the
// leases of the tasks it holds for as long as the hole lasts, and claim more, while none of them moves. It must
// instead stop claiming, hand its tasks back (each task's history says why), and leave them to replica B, which goes on
// from their checkpoints: a write A had sent is followed by polling, never sent again, and no write reaches Azure from
// a replica that did not hold the task's lease then. Once the link is healed, A claims again.
import t from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { connectProxy } from "../testkit/connect-proxy.ts";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const HELD = 6;
const LATER = 3;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const HANDED_BACK = /^Azure has not answered replica replica-a for .*: the task was handed back/;

t.setTimeout(400_000);

const dbName = `vmss_ops_azure_link_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
t.teardown(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

// Writes of 8 s: A's are still in flight when its link is cut, so B has a long-running operation to follow.
const sim = await startSimulator({ port: 0, writeDurationMs: 8000, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
const names = Array.from({ length: HELD + LATER + 1 }, (_, i) => `link-${String(i).padStart(2, "0")}`);
for (const name of names) await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
await control.clearCalls();

const env = {
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_STORE: "postgres",
  DATABASE_URL: databaseUrl,
  // A lease far longer than the test waits: a task moves to B only if A hands it back, not because its lease ran out.
  TASK_LEASE_MS: "120000",
  TASK_CLAIM_INTERVAL_MS: "200",
  LRO_POLL_INTERVAL_MS: "100",
  LRO_MAX_POLL_INTERVAL_MS: "200",
  RETRY_BUSY_POLL_INTERVAL_MS: "50",
  RETRY_TRANSIENT_BASE_DELAY_MS: "200",
  ARM_READ_TIMEOUT_MS: "2000",
  ARM_WRITE_TIMEOUT_MS: "3000",
  ARM_LINK_FAILURES: "3",
  ARM_LINK_RELEASE_AFTER_MS: "2000",
};

/** Submits a resize of `name`, again on a 503 (a loaded machine's store): the clientRequestId makes it one task. */
async function resize(service: ChildService, name: string): Promise<string> {
  let last: unknown;
  return waitFor(
    async () => {
      const res = await service.api("POST", `/azure/ops/resizeServerGroup?clientRequestId=${name}`, {
        credentials: "demo",
        region: "eastus",
        serverGroupName: name,
        capacity: { min: 0, max: 5, desired: 2 },
      });
      last = res.body;
      return res.status === 202 && (res.body.id as string);
    },
    { what: `the resize of ${name} to be accepted`, timeoutMs: 60_000, intervalMs: 200, seen: () => last },
  );
}

const nameOf = (path: string) => path.split("/").pop()!.toLowerCase();
const byReplica = (userAgent: string | undefined, id: string) => (userAgent ?? "").includes(`replica ${id})`);
/** When the task's history first says `pattern`, by the store's own record (the API's history has no times). */
async function lineTime(db: pg.Client, taskId: string, pattern: RegExp): Promise<number | undefined> {
  const { rows } = await db.query<{ status: string; time_ms: string }>(
    "SELECT status, time_ms FROM task_history WHERE task_id = $1 ORDER BY seq",
    [taskId],
  );
  const line = rows.find((r) => pattern.test(r.status));
  return line === undefined ? undefined : Number(line.time_ms);
}

t.test(
  "Azure black-holed for one replica: it stops claiming, hands its tasks back, the other finishes them",
  async (t) => {
    const link = await connectProxy();
    t.teardown(() => link.close());
    // Only A's calls to Azure go through the link; the URLs stay Azure's (the simulator's), for both replicas.
    const a = await startChildService({
      ...env,
      REPLICA_ID: "replica-a",
      HTTPS_PROXY: link.url,
      // Through a proxy the SDK drops the client's own CA (core-rest-pipeline's proxy policy): trusted process-wide.
      NODE_EXTRA_CA_CERTS: SIMULATOR_CA_FILE,
    });
    t.teardown(() => a.child.kill("SIGKILL"));

    // A alone claims the first tasks and has each one's write accepted by Azure before the link is cut.
    const held: string[] = [];
    for (const name of names.slice(0, HELD)) held.push(await resize(a, name));
    await waitFor(
      async () => {
        const accepted = (await control.calls()).filter(
          (c) => c.method === "PATCH" && c.status !== null && c.status < 300,
        );
        return new Set(accepted.map((c) => nameOf(c.path))).size === HELD;
      },
      {
        what: `Azure to accept A's ${HELD} writes`,
        timeoutMs: 120_000,
        intervalMs: 50,
        seen: () => a.output().slice(-2000),
      },
    );
    t.ok(link.tunnels > 0, "A reached Azure through the link");
    link.blackHole();
    const cutAtMs = Date.now();

    const b = await startChildService({ ...env, REPLICA_ID: "replica-b" });
    t.teardown(() => b.child.kill("SIGKILL"));
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    t.teardown(() => db.end());

    // Each task A held is handed back, with a line that says why, while the link is still cut.
    const gaveBackAt = await waitFor(
      async () => {
        const times = await Promise.all(held.map((id) => lineTime(db, id, HANDED_BACK)));
        return times.every((x) => x !== undefined) && times;
      },
      {
        what: "A to hand back every task it held",
        timeoutMs: 120_000,
        intervalMs: 100,
        seen: () => a.output().slice(-3000),
      },
    );
    t.pass(
      `every task handed back ${((Math.max(...gaveBackAt.map(Number)) - cutAtMs) / 1000).toFixed(1)} s after the cut`,
    );

    // Submitted to A while its link is cut: A stops claiming, so B runs them.
    const later: string[] = [];
    for (const name of names.slice(HELD, HELD + LATER)) later.push(await resize(a, name));

    const done = [];
    for (const id of [...held, ...later]) done.push(await b.waitForTask(id, 120_000));
    t.same(
      done.filter((x) => x.state !== "succeeded").map((x) => x.history),
      [],
      "every task succeeded while A's link was still cut",
    );
    for (const x of done.slice(0, HELD))
      t.ok(
        (x.history as Json[]).some((h) => /Resumed by replica replica-b/.test(h.status as string)),
        `${x.id}: B went on from A's checkpoint`,
      );
    for (const id of later)
      t.notOk(await lineTime(db, id, HANDED_BACK), `${id}, submitted during the cut: never held by A`);

    // The call log: one write per scale set, each accepted, each from the replica that held the task's lease then.
    const calls = await control.calls();
    const patches = calls.filter((c) => c.method === "PATCH");
    const perSet = new Map<string, number>();
    for (const p of patches) perSet.set(nameOf(p.path), (perSet.get(nameOf(p.path)) ?? 0) + 1);
    t.same(
      [...perSet].filter(([, n]) => n !== 1),
      [],
      "no write sent twice: a write in flight was followed by polling",
    );
    t.equal(perSet.size, HELD + LATER, "every scale set written");
    t.same(
      patches.filter((p) => p.status === null || p.status >= 300),
      [],
      "no write refused",
    );
    // A's leases end when it hands the tasks back; B's start with B's first line (resumed, or the task's first).
    const taskOf = new Map([...held, ...later].map((id, i) => [names[i], id]));
    for (const p of patches) {
      const id = taskOf.get(nameOf(p.path))!;
      if (byReplica(p.userAgent, "replica-a")) {
        const gaveBack = await lineTime(db, id, HANDED_BACK);
        t.ok(gaveBack !== undefined && p.time < gaveBack, `${nameOf(p.path)}: A's write before A gave the task back`);
      } else {
        t.ok(byReplica(p.userAgent, "replica-b"), `${nameOf(p.path)}: written by a replica (${p.userAgent})`);
        const claimed = (await lineTime(db, id, /^Resumed by replica replica-b/)) ?? (await lineTime(db, id, /^/));
        t.ok(claimed !== undefined && p.time >= claimed, `${nameOf(p.path)}: B's write after B claimed the task`);
      }
    }
    t.same(
      calls.filter((c) => byReplica(c.userAgent, "replica-a") && c.time > cutAtMs),
      [],
      "nothing of A's reached Azure during the cut",
    );

    // Healed: A answers again, and claims again (B gone, so only A can run the last task).
    link.heal();
    b.child.kill("SIGTERM");
    await b.exited;
    const last = await resize(a, names.at(-1)!);
    const after = await a.waitForTask(last, 120_000);
    t.equal(after.state, "succeeded", "A claims and runs tasks again once Azure answers");
    t.ok(
      (await control.calls()).some(
        (c) => c.method === "PATCH" && nameOf(c.path) === names.at(-1) && byReplica(c.userAgent, "replica-a"),
      ),
      "written by A",
    );
    t.match(a.output(), /ARM answers again/, "A's log says Azure answers again");
  },
);
