// POST /task/{id}:resume, as Orca's MonitorKatoTask uses it, and status.retryable only where a resume can succeed.
//
// Orca: orca-clouddriver/.../tasks/MonitorKatoTask.groovy (spinnaker/orca 2fdb327)
//   l.234-240 shouldRetry: status TERMINAL (task failed) and katoTask.status.retryable
//   l.202-216 kato.resumeTask(id); a 404 fails the stage with that 404 (l.207-210), other errors are swallowed
//   l.217 the stage goes on RUNNING and polls the same task id (kato.last.task.id) again
// orca-clouddriver/.../KatoRestService.java l.91-93: @POST("/task/{id}:resume") resumeTask
// Clouddriver: clouddriver-web/.../controllers/OperationsController.groovy (spinnaker/clouddriver 2f5e98f)
//   l.189-209 resumeTask: 404 for an unknown task, refused when !status.retryable, else the same task runs again
import t from "tap";
import { request } from "undici";
import { callsFor, demo, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60, env: { RETRY_MAX_ATTEMPTS: "2" } });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function fault(f: Record<string, unknown>) {
  const res = await env.simControl("POST", "/_sim/faults", f);
  if (res.status >= 300) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
}

async function submit(op: string, description: Record<string, unknown>) {
  const res = await env.api("POST", `/azure/ops/${op}`, description);
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return res.body.id as string;
}

/** Orca's call: a POST with no body at all (retrofit's @POST without @Body). */
async function resume(id: string, init: { body?: string; contentType?: string } = {}) {
  const res = await request(`${env.baseUrl}/task/${id}:resume`, {
    method: "POST",
    headers: init.contentType ? { "content-type": init.contentType } : {},
    body: init.body,
  });
  return { status: res.statusCode, body: (await res.body.json()) as Json };
}

t.test("an exhausted transient failure is retryable, and :resume runs it again until it succeeds", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 2,
  });
  const id = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 5 } }));
  const failed = await env.waitForTask(id);
  t.equal(failed.status.failed, true, "both attempts met the 409");
  t.equal(failed.status.retryable, true, "a conflict can clear: retryable");
  t.match(failed.resultObjects.at(-1), { type: "EXCEPTION", cause: "ConflictingConcurrentWriteNotAllowed" });

  const res = await resume(id);
  t.equal(res.status, 200);
  t.same(
    res.body,
    { kind: "taskRef", id, resourceUri: `/task/${id}` },
    "Clouddriver's StartOperationResult: the same task",
  );
  const again = await env.waitForTask(id);
  t.equal(again.status.failed, false, JSON.stringify(again.history));
  t.equal(again.status.retryable, false);
  t.equal(again.state, "succeeded");
  t.match(
    again.resultObjects,
    [{ type: "serverGroup", capacity: { min: 1, max: 10, desired: 5 } }],
    "no EXCEPTION left: it is not failed any more",
  );
  t.ok(
    again.history.some((h: Json) =>
      h.status.startsWith("Resumed on request: running resizeServerGroup again from a fresh read"),
    ),
    JSON.stringify(again.history),
  );
  const patches = callsFor(await env.calls(), "web-prod-v001").filter((c) => c.method === "PATCH");
  t.same(
    patches.map((p) => p.status),
    [409, 409, 200],
    "the resumed run wrote once, after a fresh read",
  );
});

t.test(
  "in a task of several operations, resume runs the failed one and what follows, not those that succeeded",
  async (t) => {
    // A conflict, not a throttle: 429 and 5xx are retried until the deadline (RETRY_DEADLINE_MS), so two of them are
    // ridden out; a conflict stops at RETRY_MAX_ATTEMPTS and leaves the task failed and retryable.
    await fault({
      method: "PATCH",
      pathContains: "web-prod-v002",
      status: 409,
      code: "ConflictingConcurrentWriteNotAllowed",
      count: 2,
    });
    const res = await env.api("POST", "/azure/ops", [
      { resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 4 } }) },
      { resizeServerGroup: demo("web-prod-v002", { capacity: { min: 1, max: 8, desired: 5 } }) },
      { disableServerGroup: demo("web-prod-v002") },
    ]);
    const id = res.body.id as string;
    const failed = await env.waitForTask(id);
    t.equal(failed.status.retryable, true, "409 twice: a conflict that can clear, retryable");
    t.match(failed.resultObjects, [
      { serverGroupName: "web-prod-v001" },
      { type: "EXCEPTION", operation: "resizeServerGroup" },
    ]);
    t.equal((await resume(id)).status, 200);
    const done = await env.waitForTask(id);
    t.equal(done.state, "succeeded", JSON.stringify(done.history));
    t.same(
      done.resultObjects.map((r: Json) => [r.serverGroupName, r.capacity.desired, r.disabled]),
      [
        ["web-prod-v001", 4, false],
        ["web-prod-v002", 5, false],
        ["web-prod-v002", 5, true],
      ],
      "one result per operation, in order",
    );
    const patchesOn = async (name: string) =>
      callsFor(await env.calls(), name)
        .filter((c) => c.method === "PATCH")
        .map((c) => c.status);
    t.same(await patchesOn("web-prod-v001"), [200], "the operation that had succeeded did not run again");
    t.same(
      await patchesOn("web-prod-v002"),
      [409, 409, 200, 200],
      "the failed one ran from a fresh read, then the disable",
    );
  },
);

t.test("resume is idempotent while the task runs again, and the body Orca may send is ignored", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 600 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 60 }));
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v002",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 2,
  });
  const id = await submit("resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 4 } }));
  t.equal((await env.waitForTask(id)).status.retryable, true);
  t.equal(
    (await resume(id, { contentType: "application/json", body: "" })).status,
    200,
    "an empty JSON body is no error",
  );
  t.equal(
    (await resume(id, { contentType: "application/json", body: "{}" })).status,
    200,
    "a second resume while it runs: 200, nothing more",
  );
  const done = await env.waitForTask(id);
  t.equal(done.state, "succeeded");
  t.equal(done.history.filter((h: Json) => h.status.startsWith("Resumed on request")).length, 1, "resumed once");
});

t.test("a failure a resume cannot change is not retryable, and resuming it is refused with 409, not 404", async (t) => {
  const id = await submit("resizeServerGroup", { ...demo("no-such-set"), capacity: { min: 0, max: 2, desired: 1 } });
  const failed = await env.waitForTask(id);
  t.equal(failed.status.failed, true);
  t.equal(failed.status.retryable, false, "404 from Azure: the same request cannot succeed later");
  const res = await resume(id);
  t.equal(res.status, 409);
  t.equal(res.body.error, "TaskNotRetryable");
  t.match(res.body.message, /failed with ResourceNotFound/);
  t.equal((await env.api("GET", `/task/${id}`)).body.state, "failed", "left as it was");
});

t.test("a succeeded task is not resumed", async (t) => {
  const id = await submit("resizeServerGroup", demo("batch-v001", { capacity: { min: 0, max: 4, desired: 2 } }));
  t.equal((await env.waitForTask(id)).state, "succeeded");
  const res = await resume(id);
  t.equal(res.status, 409);
  t.match(res.body.message, /succeeded; there is nothing to resume/);
});

t.test("an unknown task id is a 404 (no Clouddriver configured)", async (t) => {
  const res = await resume("00000000-0000-0000-0000-000000000000");
  t.equal(res.status, 404);
  t.equal(res.body.error, "NotFound");
});

t.test("a resumed task holds its scale set again: a task submitted after the resume waits for it", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 2,
  });
  const id = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 5 } }));
  t.equal((await env.waitForTask(id)).status.retryable, true);
  // A long write, so that the resumed run still holds the scale set when the next task comes in.
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 1500 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 60 }));
  t.equal((await resume(id)).status, 200);
  const next = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 3 } }));
  const [resumed, after] = [await env.waitForTask(id), await env.waitForTask(next)];
  t.equal(resumed.state, "succeeded", JSON.stringify(resumed.history));
  t.equal(after.state, "succeeded", JSON.stringify(after.history));
  t.match(
    after.history[0].status,
    new RegExp(`^Waiting for task ${id} on scale set `),
    "the next task says whom it waits for",
  );
  t.ok(after.startTimeMs >= resumed.startTimeMs && after.endTimeMs >= resumed.endTimeMs, "and ends after it");
  const patches = callsFor(await env.calls(), "web-prod-v001").filter((c) => c.method === "PATCH");
  t.same(
    patches.map((p) => p.status),
    [409, 409, 200, 200],
    "one write after the other: no 409 between them",
  );
});
