// POST /task/{id}/cancel: a task stops at its next safe point (between attempts, during a backoff, before a write,
// once a write in flight has ended, between operations), never in the middle of a write, and ends canceled saying
// what was done and what was not. The simulator's call log is the witness for "no write" and "exactly one write".
import t from "tap";
import { SimulatorControl } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { callsFor, demo, startTestEnv, writesOf, type TestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  return waitFor(probe, { what, timeoutMs });
}

async function submit(env: TestEnv, path: string, body: unknown): Promise<string> {
  const res = await env.api("POST", path, body);
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return res.body.id;
}

const writeInFlight = (env: TestEnv, name: string) => {
  const control = new SimulatorControl(env.sim);
  return until(
    `a write in flight on ${name}`,
    async () => (await control.getScaleSet("demo-rg", name)).inFlight !== null,
  );
};

t.test("mid-backoff: the task ends at once, and nothing was written", async (t) => {
  // A backoff of at least 24 s (30 s base, jitter 0.8..1.2): a task that ends sooner was stopped by the cancel.
  const env = await startTestEnv({ env: { RETRY_TRANSIENT_BASE_DELAY_MS: "30000", RETRY_MAX_DELAY_MS: "60000" } });
  t.teardown(() => env.close());
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 503,
    code: "ServiceUnavailable",
    count: 100,
  });
  const id = await submit(
    env,
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 7 } }),
  );
  await until("the backoff", async () =>
    (await env.api("GET", `/task/${id}`)).body.history.some((h: Json) => /retrying in/.test(h.status)),
  );

  const res = await env.api("POST", `/task/${id}/cancel`);
  t.equal(res.status, 200, JSON.stringify(res.body));
  const done = await env.waitForTask(id, 10_000);
  t.equal(done.state, "canceled", JSON.stringify(done.history));
  t.equal(done.status.failed, true, "Orca reads a canceled task as failed");
  t.equal(done.status.retryable, false, "and does not resume it");
  t.match(
    done.history.at(-1).status,
    /^Canceled on request, during the backoff before attempt 2\. Done: nothing\. Not done: resizeServerGroup \(operation 1\)$/,
  );
  t.same(writesOf(callsFor(await env.calls(), "web-prod-v001")), [], "no write was sent");
});

t.test("cancel while a write is in flight, in a task of several operations", async (t) => {
  const env = await startTestEnv({ writeDurationMs: 1500 });
  t.teardown(() => env.close());

  t.test(
    "mid-write: the write Azure accepted is followed to its end, then the task stops; exactly one write",
    async (t) => {
      await env.simControl("POST", "/_sim/reset");
      await env.simControl("DELETE", "/_sim/calls");
      const id = await submit(
        env,
        "/azure/ops/resizeServerGroup",
        demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } }),
      );
      await writeInFlight(env, "web-prod-v001");
      const res = await env.api("POST", `/task/${id}/cancel`);
      t.equal(res.status, 200);
      t.equal(res.body.state, "running", "still running: the write in flight is not cut off");
      t.match(res.body.history.at(-1).status, /^Cancel requested by .*: stopping at the next safe point/);
      const done = await env.waitForTask(id);
      t.equal(done.state, "canceled", JSON.stringify(done.history));
      t.match(
        done.history.at(-1).status,
        /^Canceled on request, after the write in flight ended \(.*\)\. Done: .* \(written and ended\)\. Not done: the rest of resizeServerGroup/,
      );
      const writes = writesOf(callsFor(await env.calls(), "web-prod-v001"));
      t.equal(writes.length, 1, `exactly one write: ${JSON.stringify(writes)}`);
      const control = new SimulatorControl(env.sim);
      const after = await control.getScaleSet("demo-rg", "web-prod-v001");
      t.equal(after.inFlight, null, "nothing left in flight");
      t.equal((after.vmss as Json).sku.capacity, 6, "the write ran to its end");
      t.equal((await env.api("POST", `/task/${id}/cancel`)).status, 409, "a canceled task cannot be canceled again");
    },
  );

  t.test(
    "mid-way through several operations: the first is done, the second's write ends, the third never starts",
    async (t) => {
      await env.simControl("POST", "/_sim/reset");
      await env.simControl("DELETE", "/_sim/calls");
      const id = await submit(env, "/azure/ops", [
        { resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 4 } }) },
        { resizeServerGroup: demo("web-prod-v002", { capacity: { min: 1, max: 8, desired: 5 } }) },
        { disableServerGroup: demo("web-prod-v002") },
      ]);
      await writeInFlight(env, "web-prod-v002");
      t.equal((await env.api("POST", `/task/${id}/cancel`)).status, 200);
      const done = await env.waitForTask(id);
      t.equal(done.state, "canceled", JSON.stringify(done.history));
      t.match(
        done.resultObjects,
        [{ serverGroupName: "web-prod-v001", capacity: { desired: 4 } }],
        "the first operation's result stays",
      );
      t.equal(done.resultObjects.length, 1);
      t.match(
        done.history.at(-1).status,
        /Done: resizeServerGroup \(operation 1\); .* \(written and ended\)\. Not done: the rest of resizeServerGroup \(confirming it\) \(operation 2\); disableServerGroup \(operation 3\)$/,
      );
      const calls = await env.calls();
      t.equal(writesOf(callsFor(calls, "web-prod-v001")).length, 1);
      t.equal(writesOf(callsFor(calls, "web-prod-v002")).length, 1, "the disable was never written");
    },
  );

  t.test("a queued task ends canceled at once, and the task ahead of it is left alone", async (t) => {
    await env.simControl("POST", "/_sim/reset");
    await env.simControl("DELETE", "/_sim/calls");
    const first = await submit(
      env,
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 3 } }),
    );
    const second = await submit(
      env,
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 7 } }),
    );
    const res = await env.api("POST", `/task/${second}/cancel`);
    t.equal(res.status, 200);
    t.equal(res.body.state, "canceled", "it had not started: canceled at once");
    t.match(
      res.body.history.at(-1).status,
      /^Canceled on request of .* before it started\. Done: nothing\. Not done: resizeServerGroup$/,
    );
    t.equal((await env.waitForTask(first)).state, "succeeded");
    t.equal(writesOf(callsFor(await env.calls(), "web-prod-v001")).length, 1, "only the first task wrote");
  });

  t.test("unknown and finished tasks", async (t) => {
    const missing = await env.api("POST", "/task/no-such-task/cancel");
    t.equal(missing.status, 404);
    const id = await submit(
      env,
      "/azure/ops/resizeServerGroup",
      demo("batch-v001", { capacity: { min: 1, max: 8, desired: 2 } }),
    );
    t.equal((await env.waitForTask(id)).state, "succeeded");
    const res = await env.api("POST", `/task/${id}/cancel`);
    t.equal(res.status, 409);
    t.match(res.body, { error: "TaskFinished", message: /has already succeeded; there is nothing to cancel/ });
  });
});
