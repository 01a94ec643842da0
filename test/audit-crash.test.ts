// A replica killed between accepting changes and answering them: every task it created has its audit entry, and every
// entry its task (they are one transaction), whether or not the caller heard back. A caller that heard nothing asks
// again with its clientRequestId and gets the same task, still with one entry. The service runs as a real child
// process on SQLite; "Azure" (the simulator) lives in the test process and outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { startSimulator } from "vmss-simulator";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { restartableServiceEnv, startChildService, type ChildService } from "../testkit/child-service.ts";
import { waitFor } from "../testkit/wait-for.ts";

// Writes of 1.5 s: a submission held with ?wait= is accepted long before its task can end and be answered.
const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: true });
t.teardown(() => sim.close());

/** Orca's identity headers, trusted here: the entry must name the user. */
const ORCA = { "x-spinnaker-user": "deployer@example.com", "x-spinnaker-accounts": "demo" };
const env = (dataDir: string) => ({
  ...restartableServiceEnv(sim.url, dataDir),
  AUTH_TRUST_SPINNAKER_HEADERS: "true",
});

async function call(service: ChildService, method: string, path: string, body?: unknown) {
  const res = await request(`${service.url}${path}`, {
    method: method as "GET",
    headers: { ...ORCA, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const SCALE_SETS = ["web-prod-v001", "web-prod-v002", "batch-v001"];
const submission = (i: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: SCALE_SETS[i % SCALE_SETS.length],
  capacity: { min: 1, max: 10, desired: 2 + (i % 4) },
});

t.test(
  "SIGKILL between acceptance and answer: no task without its audit entry, no entry without its task",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-audit-crash-"));
    const first = await startChildService(env(dataDir));
    const reader = await SqliteTaskStore.open({ dataDir });
    t.teardown(() => reader.close());

    // Submissions held until their task ends (?wait=60): each is accepted (task and entry stored) long before its answer.
    const N = 12;
    // What was answered before the kill, for a failure message: a submission refused (a 4xx, a 503) is never stored.
    const heardEarly: string[] = [];
    const answers = Array.from({ length: N }, (_, i) =>
      call(first, "POST", `/azure/ops/resizeServerGroup?clientRequestId=crash-${i}&wait=60`, submission(i)).then(
        (res) => {
          heardEarly.push(`crash-${i}: ${res.status} ${res.body?.error ?? res.body?.state ?? ""}`);
          return { answered: true as const, status: res.status };
        },
        (err: Error) => ({ answered: false as const, err }),
      ),
    );
    await waitFor(async () => (await reader.list({ limit: 500 })).tasks.length >= 3, {
      what: "some submissions accepted (their tasks stored)",
      seen: () => ({ answered: heardEarly, output: first.output().slice(-2000) }),
    });
    first.child.kill("SIGKILL");
    t.match(await first.exited, { signal: "SIGKILL" });
    const heard = await Promise.all(answers);
    const unanswered = heard.flatMap((h, i) => (h.answered ? [] : [i]));
    t.ok(unanswered.length > 0, `callers that never heard back: ${unanswered.length} of ${N}`);

    const tasks = (await reader.list({ limit: 500 })).tasks;
    const entries = (await reader.listAudit({ limit: 500 })).entries;
    t.ok(tasks.length >= 3, `${tasks.length} tasks were accepted before the kill`);
    for (const task of tasks) {
      const mine = entries.filter((e) => e.taskId === task.id);
      t.equal(mine.length, 1, `task ${task.clientRequestId} has its entry`);
      t.match(mine[0], {
        action: "submit",
        decision: "accepted",
        actor: { name: "deployer@example.com", via: "spinnakerHeaders", spinnakerUser: "deployer@example.com" },
        clientRequestId: task.clientRequestId,
        targets: [{ operation: "resizeServerGroup", account: "demo" }],
      });
      t.match(task.submittedBy, { name: "deployer@example.com" });
    }
    const taskIds = new Set(tasks.map((x) => x.id));
    t.same(
      entries.filter((e) => !taskIds.has(e.taskId!)),
      [],
      "no entry without its task",
    );

    // Another replica on the same store; the callers that heard nothing ask again.
    const second = await startChildService(env(dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    for (const i of unanswered) {
      const again = await call(
        second,
        "POST",
        `/azure/ops/resizeServerGroup?clientRequestId=crash-${i}`,
        submission(i),
      );
      t.equal(again.status, 202, `crash-${i} asked again`);
      const stored = tasks.find((x) => x.clientRequestId === `crash-${i}`);
      if (stored) t.equal(again.body.id, stored.id, `crash-${i}: the task accepted before the kill`);
      const { body } = await call(second, "GET", `/audit?taskId=${again.body.id}`);
      t.equal(body.entries.length, 1, `crash-${i}: one entry, whether it was accepted before the kill or now`);
    }
    // Every task ends (the second replica takes over the first's), and its entry says how.
    for (const task of (await reader.list({ limit: 500 })).tasks) {
      await waitFor(async () => (await call(second, "GET", `/task/${task.id}`)).body.status.completed, {
        what: `task ${task.clientRequestId} to end`,
      });
      const { body } = await call(second, "GET", `/audit?taskId=${task.id}`);
      t.match(body.entries, [{ outcome: /^(succeeded|failed)$/ }], `${task.clientRequestId}: its outcome`);
    }
  },
);
