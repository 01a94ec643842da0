// A replica starts serving warm: everything its first requests and its first tasks need is loaded before it listens.
// A restarted replica meets its clients' pent-up requests the moment it listens and, with a backlog in the store,
// claims a batch of tasks at once; whatever either loads then (the Azure SDK, some 250 modules; the schema compilers,
// some 100) is read and compiled synchronously while the burst waits unread. On a loaded machine that was seconds:
// requests sent to a restarted replica as it listened went unanswered past a client's 5 s (docs/faults.md, "A replica
// restarted"). The invariant, not a timing: with a backlog claimed and a burst of reads, held reads and submissions
// served, no module loads after the service listens.
import t from "tap";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";

t.setTimeout(240_000);

const SETS = 8;
const { directUrl } = await linkedDatabase(t, "vmss_ops_warm");
// A's one task stays running (its write outlasts the test) while the others queue behind its slot.
const sim = await startSimulator({ port: 0, writeDurationMs: 600_000, timeScale: 0.001, seed: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
for (let i = 0; i < SETS; i++) await control.putScaleSet("demo-rg", `warm-${i}`, { capacity: 1, loadBalanced: false });

const env = {
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_STORE: "postgres",
  DATABASE_URL: directUrl,
  LRO_POLL_INTERVAL_MS: "50",
  LRO_MAX_POLL_INTERVAL_MS: "50",
  LOG_LEVEL: "warn",
};
const resize = (i: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: `warm-${i % SETS}`,
  capacity: { min: 0, max: 5, desired: 2 },
});

t.test("a restarted replica loads nothing after it listens: not for its backlog, not for a burst", async (t) => {
  const a = await startChildService({ ...env, REPLICA_ID: "warm-a", TASK_CONCURRENCY: "1" });
  t.teardown(() => a.child.kill("SIGKILL"));
  const ids: string[] = [];
  for (let i = 0; i < SETS; i++) {
    const res = await a.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(i));
    t.equal(res.status, 202);
    ids.push(res.body.id);
  }
  a.child.kill("SIGKILL");
  await a.exited;
  await control.setConfig({ writeDurationMs: 0 });

  const b = await startChildService({
    ...env,
    REPLICA_ID: "warm-b",
    NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "log-module-loads.mjs")}`,
  });
  t.teardown(() => b.child.kill("SIGKILL"));
  // The burst, as soon as B says it listens: reads, held reads, submissions and its probes.
  const burst = await Promise.all([
    ...ids.map((id) => b.api("GET", `/task/${id}`)),
    ...ids.map((id) => b.api("GET", `/task/${id}?wait=1`)),
    ...ids.map((_, i) => b.api("POST", "/azure/ops/resizeServerGroup", resize(i))),
    b.api("GET", "/health"),
    b.api("GET", "/ready"),
  ]);
  t.same(
    burst.map((r) => r.status).filter((s) => s !== 200 && s !== 202),
    [],
    "every request of the burst answered",
  );
  // B runs the backlog it claimed (the first task of each scale set but A's): the Azure calls of a task, end to end.
  for (const id of ids.slice(1)) t.equal((await b.waitForTask(id)).state, "succeeded");

  const lines = b
    .output()
    .split("\n")
    .filter((l) => l.startsWith("module-load ") || l.startsWith(`server-listening ${new URL(b.url).port}`));
  const listening = lines.findIndex((l) => l.startsWith("server-listening "));
  t.ok(listening > 0, "the hook sees the service start listening");
  t.ok(
    lines.slice(0, listening).some((l) => l.includes("/@azure/arm-compute/")),
    "the Azure SDK is loaded before it listens",
  );
  t.same(
    lines
      .slice(listening + 1)
      .map((l) => l.slice("module-load ".length))
      // Node's own modules are part of the binary: nothing to read or compile.
      .filter((u) => !u.startsWith("node:")),
    [],
    "no module loaded after it listens",
  );
  b.child.kill("SIGTERM");
  await b.exited;
});
