// Where an operation acts is located once, at submission, and stored with the task: the store orders the task by it
// and the run acts on it. Here the accounts configuration changes between submission and run, as an operator's edit
// and a restart change it: one service accepts the task (its runner stopped, so the task waits), a second one on the
// same SQLite file, with other accounts, runs it. Real HTTP, the real simulator, real SQLite.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { buildApp, type Service } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { createTaskStore } from "../src/tasks/create-task-store.ts";
import { startSimulator, type RunningSimulator, SimulatorControl, SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import type { Json } from "../testkit/json.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { writesOf, type SimCall, TEST_TIME_SCALE } from "./helpers/service.ts";

interface Running {
  service: Service;
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Json }>;
}

/** An account "blue" on the simulator's subscription, keeping its server groups in its own resource group. */
function blue(extra: Record<string, unknown> = {}) {
  return {
    name: "blue",
    subscriptionId: SIMULATOR_SUBSCRIPTION_ID,
    defaultResourceGroup: "demo-rg",
    serverGroupResourceGroup: "account",
    regions: ["eastus", "westus"],
    credential: "simulator",
    ...extra,
  };
}

async function serviceOn(sim: RunningSimulator, dataDir: string, accounts: unknown[]): Promise<Running> {
  const config = loadConfig({
    SIMULATOR_URL: sim.url,
    SIMULATOR_TIME_SCALE: String(TEST_TIME_SCALE),
    PORT: "0",
    TASK_STORE: "sqlite",
    DATA_DIR: dataDir,
    ACCOUNTS: JSON.stringify(accounts),
    TASK_CLAIM_INTERVAL_MS: "100",
    LRO_POLL_INTERVAL_MS: "25",
    LRO_MAX_POLL_INTERVAL_MS: "25",
    RETRY_MAX_DELAY_MS: "500",
  });
  for (const a of config.accounts) if (a.credential.kind === "simulator") a.caPem = sim.caPem;
  const service = await buildApp({ config, store: await createTaskStore(config), logger: false });
  await service.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
  return {
    service,
    api: async (method, path, body) => {
      const res = await fetch(`${base}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

async function simCalls(sim: RunningSimulator): Promise<SimCall[]> {
  return await new SimulatorControl(sim).calls();
}

/**
 * Submits `description` as a resize to a service with `before` accounts whose runner is stopped (the task waits in
 * the store), then runs it in a service with `after` accounts on the same store. Returns the task as it ended, and
 * the simulator's calls made by the run.
 */
async function changeBetween(
  t: Test,
  before: unknown[],
  after: unknown[],
  description: Record<string, unknown>,
): Promise<{ task: Json; calls: SimCall[] }> {
  const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: TEST_TIME_SCALE, seed: true });
  const dataDir = await mkdtemp(join(tmpdir(), "vmss-ops-targets-"));
  t.teardown(async () => {
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const accepting = await serviceOn(sim, dataDir, before);
  await accepting.service.runner.stop(1000);
  const submitted = await accepting.api("POST", "/azure/ops/resizeServerGroup", description);
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const id = submitted.body.id as string;
  t.equal((await accepting.service.store.get(id))?.state, "queued", "accepted, not run: its runner is stopped");
  await accepting.service.close();

  const callsBefore = (await simCalls(sim)).length;
  const running = await serviceOn(sim, dataDir, after);
  t.teardown(() => running.service.close());
  running.service.runner.start();
  let task: Json = {};
  await waitFor(
    async () => {
      const got = await running.api("GET", `/task/${id}`);
      if (got.status !== 200) throw new Error(`GET /task/${id}: ${got.status} ${JSON.stringify(got.body)}`);
      task = got.body;
      return (task.status as { completed: boolean }).completed;
    },
    { what: `task ${id} to end in the service with the new accounts` },
  );
  return { task, calls: (await simCalls(sim)).slice(callsBefore) };
}

const resize = { credentials: "blue", region: "eastus", serverGroupName: "web-prod-v001", targetSize: 3 };

function exceptionOf(task: Json): { cause: string; message: string } {
  const results = task.resultObjects as { type?: string; cause: string; message: string }[];
  return results.find((r) => r.type === "EXCEPTION") ?? { cause: "", message: "" };
}

t.test(
  "an account removed after submission fails the task with a code that says so, and nothing is written",
  async (t) => {
    const { task, calls } = await changeBetween(t, [blue()], [], resize);
    const status = task.status as { failed: boolean; retryable: boolean };
    t.ok(status.failed, "failed");
    t.notOk(status.retryable, "not retryable: a resume would find the same configuration");
    const exception = exceptionOf(task);
    t.equal(exception.cause, "AccountConfigurationChanged", "named, not an internal error");
    t.match(exception.message, /account blue is no longer configured/, "says what changed");
    t.match(exception.message, /web-prod-v001 in account blue, subscription .*, region eastus, resource group demo-rg/);
    t.same(writesOf(calls), [], "nothing written to Azure");
  },
);

t.test("a region dropped from the account after submission fails the task the same way", async (t) => {
  const { task, calls } = await changeBetween(t, [blue()], [blue({ regions: ["westus"] })], resize);
  const exception = exceptionOf(task);
  t.equal(exception.cause, "AccountConfigurationChanged");
  t.match(exception.message, /account blue no longer operates in eastus \(its regions now: westus\)/);
  t.same(writesOf(calls), [], "nothing written to Azure");
});

t.test("another resource group configured after submission: the run writes the scale set located then", async (t) => {
  // Located again at run time, the description would now mean other-rg/web-prod-v001 (which does not exist), while
  // the store ordered the task by demo-rg/web-prod-v001: the write and the order name the same scale set.
  const { task, calls } = await changeBetween(t, [blue()], [blue({ defaultResourceGroup: "other-rg" })], resize);
  t.notOk((task.status as { failed: boolean }).failed, JSON.stringify(task.resultObjects));
  const writes = writesOf(calls);
  t.ok(writes.length > 0, "the resize was written");
  for (const w of writes) t.match(w.path, /\/resourceGroups\/demo-rg\/.*\/virtualMachineScaleSets\/web-prod-v001/i);
  t.notOk(
    calls.some((c) => /other-rg/i.test(c.path)),
    "nothing sent to the resource group configured after submission",
  );
});
