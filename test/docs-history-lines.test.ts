// Every task history line the docs quote (in ```history blocks, `…` standing for any text) is one the service
// writes: the scenarios below produce them against the simulator, and each quoted line must match one of them.
import t from "tap";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config/accounts.ts";
import { openingLine } from "../src/tasks/task-outcome.ts";
import type { Task } from "../src/tasks/task.ts";
import { demo, startTestEnv, type TestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const root = join(import.meta.dirname, "..");

const docs = ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));

/** The lines of every ```history block in README.md and docs/, with where they are. */
function quotedHistoryLines(): { doc: string; line: string }[] {
  return docs.flatMap((doc) =>
    [...readFileSync(join(root, doc), "utf8").matchAll(/^( *)```history\n([\s\S]*?)^ *```\s*$/gm)].flatMap((m) =>
      m[2]
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "")
        .map((line) => ({ doc, line })),
    ),
  );
}

/** A quoted line as a pattern: `…` is any text, the rest is literal, the whole line. */
function patternOf(quoted: string): RegExp {
  const parts = quoted.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".+?")}$`);
}

async function submit(env: TestEnv, name: string, desired: number): Promise<string> {
  const res = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo(name, { capacity: { min: 1, max: 9, desired } }),
  );
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return res.body.id as string;
}

/** The history lines of tasks that queue, wait out another writer, retry a 429 and a 409, and are canceled. */
async function producedLines(env: TestEnv): Promise<string[]> {
  const tasks: Json[] = [];
  // Our own tasks on one scale set: the second and third queue behind the first; the third is canceled queued.
  const first = await submit(env, "web-prod-v001", 3);
  const second = await submit(env, "web-prod-v001", 4);
  const third = await submit(env, "web-prod-v001", 5);
  tasks.push((await env.api("POST", `/task/${third}/cancel`)).body);
  tasks.push(await env.waitForTask(first), await env.waitForTask(second));

  // Azure throttles the write once, with Retry-After; then a 409 from another write.
  for (const [status, code] of [
    [429, "TooManyRequests"],
    [409, "ConflictingConcurrentWriteNotAllowed"],
  ] as const) {
    const fault = { method: "PATCH", pathContains: "batch-v001", status, code, count: 1, retryAfterSeconds: 1 };
    if ((await env.simControl("POST", "/_sim/faults", fault)).status >= 300) throw new Error("fault refused");
    tasks.push(await env.waitForTask(await submit(env, "batch-v001", status === 429 ? 2 : 3)));
  }

  // Another tool's write in flight: waited out.
  const other = createComputeClient(
    simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }),
  );
  const foreign = other.virtualMachineScaleSets.update(
    "demo-rg",
    "web-prod-v002",
    { tags: { deployedBy: "other-tool" } },
    { updateIntervalInMs: 20 },
  );
  await foreign.submitted();
  tasks.push(await env.waitForTask(await submit(env, "web-prod-v002", 2)));
  await foreign.pollUntilDone();

  const lines = tasks.flatMap((task) => (task.history as Json[]).map((h) => h.status as string));
  // A task another replica continues (a crash test of its own shows it happen): the line the runner writes then.
  const resumed: Pick<Task, "state" | "operations" | "operationIndex"> = {
    state: "running",
    operations: [{ name: "resizeServerGroup", description: {} }],
    operationIndex: 0,
  };
  lines.push(openingLine(resumed, "replica-b").status);
  return lines;
}

t.test("every history line the docs quote is one the service writes", async (t) => {
  const quoted = quotedHistoryLines();
  t.ok(quoted.length >= 5, `the docs quote history lines (${quoted.length})`);
  for (const doc of docs)
    t.notMatch(
      readFileSync(join(root, doc), "utf8"),
      /operation\(s\) of other tasks/,
      `${doc}: no line the service never wrote`,
    );
  const env = await startTestEnv({ writeDurationMs: 300 });
  t.teardown(() => env.close());
  const produced = await producedLines(env);
  for (const { doc, line } of quoted) {
    const pattern = patternOf(line);
    t.ok(
      produced.some((p) => pattern.test(p)),
      `${doc}: "${line}" is written by the service`,
      { produced },
    );
  }
});
