// A program built on the client package (src/client), as a user of the API writes it: type-checked under --strict by
// npm test's tsc like every file here, with no cast and no fetch of its own (the test reads its source to hold it
// to that), run against the service on the simulator. Orca's exact payloads, nulls included, for resize, disable,
// enable and scale down; a dry run; a cancel; and the bad-input cases, each a typed error answer.
import t from "tap";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  createClient,
  type ErrorResponse,
  type Schemas,
  type Task,
  type TaskRef,
  type VmssOpsClient,
} from "../src/client/index.ts";
import { startTestEnv } from "./helpers/service.ts";

// ---- the program ----

/** Orca's TargetServerGroup.toClouddriverOperationPayload (TargetServerGroup.java l.136-160), nulls as Orca sends. */
function orcaTarget(serverGroupName: string) {
  return {
    credentials: "demo",
    accountName: "demo",
    serverGroupName,
    asgName: serverGroupName,
    cloudProvider: "azure",
    region: "eastus",
    resourceGroup: null,
    account: null,
  };
}

/** Submits, then holds GET /task/{id}?wait= until the task has ended. */
async function untilEnded(client: VmssOpsClient, id: string): Promise<Task> {
  for (;;) {
    const polled = await client.GET("/task/{id}", { params: { path: { id }, query: { wait: 60 } } });
    if (polled.error) throw new Error(`GET /task/${id}: ${polled.error.message}`);
    if (polled.data.status.completed) return polled.data;
  }
}

/** The 202's task id; anything else is a failure of the program. */
function taskIdOf(answer: { data?: TaskRef | Schemas["SubmissionAnswer"]; error?: ErrorResponse }): string {
  if (answer.error) throw new Error(answer.error.message);
  if (answer.data?.kind !== "taskRef") throw new Error(`expected a task's reference, got ${answer.data?.kind}`);
  return answer.data.id;
}

async function orcaStages(client: VmssOpsClient): Promise<Task[]> {
  const resize = await client.POST("/azure/ops/resizeServerGroup", {
    body: { ...orcaTarget("web-prod-v001"), capacity: { min: 1, max: 6, desired: 4 }, targetSize: null },
  });
  const disable = await client.POST("/azure/ops/disableServerGroup", {
    body: { ...orcaTarget("web-prod-v002"), desiredPercentage: null },
  });
  const ended = [await untilEnded(client, taskIdOf(resize)), await untilEnded(client, taskIdOf(disable))];
  const enable = await client.POST("/azure/ops/enableServerGroup", {
    body: { ...orcaTarget("web-prod-v002"), desiredPercentage: null },
  });
  const scaleDown = await client.POST("/azure/ops/scaleDown", {
    body: { ...orcaTarget("batch-v001"), capacity: null, instanceIds: null },
  });
  ended.push(await untilEnded(client, taskIdOf(enable)), await untilEnded(client, taskIdOf(scaleDown)));
  return ended;
}

async function dryRunOf(client: VmssOpsClient) {
  const planned = await client.POST("/azure/ops/disableServerGroup", {
    params: { query: { dryRun: true } },
    body: orcaTarget("web-prod-v001"),
  });
  if (planned.error) throw new Error(planned.error.message);
  if (planned.data.kind !== "dryRun") throw new Error(`a dry run answers its plan, got ${planned.data.kind}`);
  return planned.data;
}

/** Two resizes of one scale set: the second waits behind the first, and is canceled. */
async function cancelQueued(client: VmssOpsClient): Promise<{ answered: string; ended: Task }> {
  const body = { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" };
  const first = taskIdOf(await client.POST("/azure/ops/resizeServerGroup", { body: { ...body, targetSize: 5 } }));
  const second = taskIdOf(await client.POST("/azure/ops/resizeServerGroup", { body: { ...body, targetSize: 6 } }));
  const canceled = await client.POST("/task/{id}/cancel", { params: { path: { id: second } } });
  if (canceled.error) throw new Error(canceled.error.message);
  const ended = await untilEnded(client, second);
  await untilEnded(client, first);
  return { answered: canceled.data.state, ended };
}

async function badInput(client: VmssOpsClient) {
  const inverted = await client.POST("/azure/ops/resizeServerGroup", {
    body: {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      capacity: { min: 5, max: 1, desired: 3 },
    },
  });
  const misspelled = await client.POST("/azure/ops/scaleDown", {
    body: {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "batch-v001",
      capcity: { min: 0, max: 0, desired: 0 },
    },
  });
  const noTask = await client.GET("/task/{id}", { params: { path: { id: "no-such-task" } } });
  const refusedPassword = await client.POST("/azure/ops/createServerGroup", {
    body: {
      credentials: "demo",
      region: "eastus",
      application: "web",
      image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
      sku: { name: "Standard_D2s_v3" },
      capacity: { min: 1, max: 1, desired: 1 },
      osConfig: {
        // @ts-expect-error a password is never accepted in a request: the type says so, and the service refuses it
        adminPassword: "hunter2",
      },
    },
  });
  return [inverted, misspelled, noTask, refusedPassword].map((a) => ({
    status: a.response.status,
    error: a.error?.error,
    fields: a.error?.details?.map((d) => d.field) ?? [],
  }));
}

// ---- end of the program ----

const env = await startTestEnv({ writeDurationMs: 300 });
t.teardown(() => env.close());
const client = createClient({ baseUrl: env.baseUrl });

void t.test("the program has no cast and no fetch of its own", async (t) => {
  const source = await readFile(fileURLToPath(import.meta.url), "utf8");
  const program = source
    .slice(source.indexOf("// ---- the program ----"), source.indexOf("// ---- end of the program"))
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, ""); // its code, not its comments
  t.ok(program.length > 1000, "(the program is there)");
  t.notMatch(program, /\bas\s+(?!const\b)[A-Za-z{[(]/, "no `as` cast");
  t.notMatch(program, /<[A-Z][A-Za-z]*>\s*[a-z(]/, "no angle-bracket cast");
  t.notMatch(program, /[a-zA-Z)\]]!\./, "no non-null assertion");
  t.notMatch(program, /\bfetch\s*\(/, "no fetch of its own");
});

void t.test("Orca's exact payloads, nulls included: resize, disable, enable, scale down", async (t) => {
  const [resize, disable, enable, scaleDown] = await orcaStages(client);
  for (const task of [resize, disable, enable, scaleDown])
    t.equal(task.state, "succeeded", `${task.operations?.join(", ")}: ${JSON.stringify(task.history)}`);
  t.match(resize.resultObjects, [{ capacity: { min: 1, max: 6, desired: 4 } }]);
  t.match(disable.resultObjects, [{ disabled: true }]);
  t.match(enable.resultObjects, [{ disabled: false }]);
  t.match(scaleDown.resultObjects, [{ capacity: { desired: 0 } }], "no capacity: Orca's 0/0/0");
});

void t.test("a dry run: the plan, and nothing named as unread", async (t) => {
  const plan = await dryRunOf(client);
  t.equal(plan.dryRun, true);
  t.same(plan.ignoredFields, [], "Orca's own fields are known, even under strict handling");
  t.match(plan.operations, [{ operation: "disableServerGroup", serverGroupName: "web-prod-v001" }]);
});

void t.test("a cancel: the task waiting its turn ends canceled", async (t) => {
  const { answered, ended } = await cancelQueued(client);
  t.ok(["canceled", "queued", "running"].includes(answered), `the answer's state: ${answered}`);
  t.equal(ended.state, "canceled", JSON.stringify(ended.history));
  t.equal(ended.status.failed, true, "Orca reads a canceled task as failed");
});

void t.test("bad input: each a typed error answer naming what is wrong", async (t) => {
  const [inverted, misspelled, noTask, refusedPassword] = await badInput(client);
  t.match(inverted, { status: 400, error: "ValidationError", fields: ["capacity"] });
  t.match(misspelled, { status: 400, error: "ValidationError", fields: ["capcity"] });
  t.match(noTask, { status: 404, error: "NotFound" });
  t.match(refusedPassword, { status: 400, error: "ValidationError" });
  t.ok(
    refusedPassword.fields.some((f) => f.includes("adminPassword")),
    `the password is named: ${refusedPassword.fields.join(", ")}`,
  );
});
