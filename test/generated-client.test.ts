// A client generated from openapi/openapi.json compiles, is really typed, and drives an operation to completion.
//
// At test time, in a temp dir: openapi-typescript turns the checked-in document into schema.ts; client.ts (below)
// uses openapi-fetch's createClient<paths>() with it. The TypeScript compiler API type-checks client.ts, and a
// copy with its @ts-expect-error lines removed must fail with exactly the errors they expect (so the types are
// not `any`). Then the test imports that same client.ts (Node strips its types) and runs it against a real
// service and simulator.
import t from "tap";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import openapiTS, { astToString } from "openapi-typescript";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const REPO = resolve(import.meta.dirname, "..");

/** The client program. Lines marked `// @ts-expect-error` must each carry a real type error on the next line. */
const CLIENT_SOURCE = `
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.ts";

type Schemas = components["schemas"];
export type TaskRef = Schemas["TaskRef"];
export type Task = Schemas["Task"];
export type ErrorResponse = Schemas["ErrorResponse"];
export type ServerGroupResult = Schemas["ServerGroupResult"];

// Compile-time checks that the generated types are precise, not any.
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): void {}

export function makeClient(baseUrl: string) {
  return createClient<paths>({ baseUrl });
}

export interface ResizeOutcome {
  status: number;
  accepted: TaskRef;
  task: Task;
  result: ServerGroupResult;
  polls: number;
}

/** POST /azure/ops/resizeServerGroup, then poll GET /task/{id} until status.completed. */
export async function resizeToCompletion(baseUrl: string, serverGroupName: string, capacity: Schemas["Capacity"], timeoutMs = 30_000): Promise<ResizeOutcome> {
  const client = makeClient(baseUrl);
  const { data, error, response } = await client.POST("/azure/ops/resizeServerGroup", {
    body: { credentials: "demo", region: "eastus", serverGroupName, capacity },
    params: { query: { clientRequestId: \`generated-client-\${Date.now()}\` } },
  });
  assertType<Equal<typeof error, ErrorResponse | undefined>>();
  if (error) throw new Error(\`resize refused: \${response.status} \${error.error}: \${error.message}\`);
  // 202 with a TaskRef, or (with ?wait=) 200 with the Task: the document says both, the client tells them apart.
  // kind tells the answers apart (taskRef, task, dryRun): checking it narrows the type.
  if (data.kind !== "taskRef") throw new Error(\`without ?wait the answer is a TaskRef, got \${response.status}\`);
  const accepted: TaskRef = data;
  assertType<Equal<typeof accepted.id, string>>();

  const until = Date.now() + timeoutMs;
  for (let polls = 1; ; polls++) {
    const got = await client.GET("/task/{id}", { params: { path: { id: accepted.id } } });
    if (got.error) throw new Error(\`GET /task/\${accepted.id}: \${got.response.status} \${got.error.message}\`);
    const task: Task = got.data;
    assertType<Equal<typeof task.status.completed, boolean>>();
    if (task.status.completed) {
      // resultObjects items are open objects in the document; a finished resize's is a ServerGroupResult.
      const result = task.resultObjects[0] as unknown as ServerGroupResult;
      return { status: response.status, accepted, task, result, polls };
    }
    if (Date.now() > until) throw new Error(\`task \${accepted.id} did not complete: \${JSON.stringify(task)}\`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A request the service must refuse with 400: the error comes back typed as ErrorResponse. */
export async function badResize(baseUrl: string): Promise<{ status: number; error: ErrorResponse; data: unknown }> {
  const client = makeClient(baseUrl);
  const { data, error, response } = await client.POST("/azure/ops/resizeServerGroup", {
    body: { credentials: "demo", region: "East US", serverGroupName: "web-prod-v001", capacity: { min: 1, max: 10, desired: 5 } },
  });
  if (!error) throw new Error(\`expected an error, got \${response.status} \${JSON.stringify(data)}\`);
  const typed: ErrorResponse = error;
  const firstField: string | undefined = typed.details?.[0]?.field;
  void firstField;
  return { status: response.status, error: typed, data };
}

/**
 * Orca's bodies as its stages send them, nulls included (null means absent): they compile with no cast. Never
 * called: only type-checked.
 */
export function orcaBodies(client: ReturnType<typeof makeClient>): void {
  const located = { credentials: "demo", account: "demo", region: "eastus", serverGroupName: "web-prod-v001", resourceGroup: null };
  const orca = { cloudProvider: "azure", user: "anonymous", moniker: { app: "web", cluster: "web-prod" }, asgName: "web-prod-v001" };
  void client.POST("/azure/ops/resizeServerGroup", {
    body: { ...located, ...orca, capacity: { min: 1, max: 4, desired: 2 }, targetSize: null },
  });
  void client.POST("/azure/ops/disableServerGroup", { body: { ...located, ...orca, desiredPercentage: null } });
  void client.POST("/azure/ops/enableServerGroup", { body: { ...located, ...orca, desiredPercentage: null } });
  void client.POST("/azure/ops/scaleDown", { body: { ...located, ...orca, capacity: null, instanceIds: null } });
  void client.POST("/azure/ops", { body: [{ scaleDown: { ...located, capacity: null } }] });
}

/** Never called: only type-checked. */
export function typeErrors(client: ReturnType<typeof makeClient>): void {
  void client.POST("/azure/ops/resizeServerGroup", {
    // @ts-expect-error capacity.desired must be a number
    body: { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001", capacity: { min: 1, max: 10, desired: "5" } },
  });
  void client.POST("/azure/ops/scaleDown", {
    // @ts-expect-error serverGroupName is required
    body: { credentials: "demo", region: "eastus" },
  });
  // @ts-expect-error there is no GET on an operation route
  void client.GET("/azure/ops/resizeServerGroup", {});
  // @ts-expect-error getTask needs its path parameter
  void client.GET("/task/{id}", { params: { path: {} } });
  void client.POST("/azure/ops", {
    // @ts-expect-error an envelope's description is typed too: serverGroupName is a string
    body: [{ resizeServerGroup: { credentials: "demo", region: "eastus", serverGroupName: 42 } }],
  });
}
`;

/** Which error each @ts-expect-error stands for, in order: when the directive is removed, this code must appear. */
const EXPECTED_ERRORS: { code: number; message: RegExp }[] = [
  { code: 2322, message: /'string' is not assignable to type 'number'/ },
  { code: 2322, message: /Property 'serverGroupName' is missing/ },
  { code: 2345, message: /"\/azure\/ops\/resizeServerGroup"/ },
  { code: 2741, message: /Property 'id' is missing/ },
  { code: 2322, message: /'number' is not assignable to type 'string'/ },
];

interface ClientModule {
  resizeToCompletion(
    baseUrl: string,
    name: string,
    capacity: { min: number; max: number; desired: number },
  ): Promise<{
    status: number;
    accepted: { id: string; resourceUri: string };
    task: Json;
    result: Json;
    polls: number;
  }>;
  badResize(baseUrl: string): Promise<{
    status: number;
    error: { statusCode: number; error: string; message: string; details?: { field: string; message: string }[] };
    data: unknown;
  }>;
}

const dir = await mkdtemp(join(tmpdir(), "vmss-client-"));
t.teardown(() => rm(dir, { recursive: true, force: true }));
// Resolve openapi-fetch and @types/node from the repo, as an installed client would from its own node_modules.
await symlink(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
await writeFile(
  join(dir, "package.json"),
  JSON.stringify({ name: "vmss-ops-client-check", private: true, type: "module" }),
);

t.test("openapi-typescript generates types from the checked-in document", async (t) => {
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
  const schemaTs = astToString(await openapiTS(document, { silent: true }));
  await writeFile(join(dir, "schema.ts"), schemaTs);
  t.match(schemaTs, /export interface paths \{/, "has paths");
  t.match(schemaTs, /"\/azure\/ops\/resizeServerGroup": \{/, "has the resize route");
  t.match(schemaTs, /resizeServerGroup: \{/, "has the resize operation by operationId");
  for (const name of [
    "Task",
    "TaskRef",
    "ErrorResponse",
    "ResizeServerGroupDescription",
    "Capacity",
    "ServerGroupResult",
  ]) {
    t.match(schemaTs, new RegExp(`\\n {8}${name}: `), `components.schemas.${name} is a named type`);
  }
});

t.test("the client program type-checks, and its @ts-expect-error lines catch real errors", async (t) => {
  const lines = CLIENT_SOURCE.split("\n");
  const directives = lines.flatMap((line, i) => (line.trim().startsWith("// @ts-expect-error") ? [i] : []));
  t.equal(directives.length, EXPECTED_ERRORS.length, "one expected error per directive");
  // Same line count, so diagnostics map back to CLIENT_SOURCE's lines.
  const unchecked = lines.map((line, i) => (directives.includes(i) ? "" : line)).join("\n");
  await writeFile(join(dir, "client.ts"), CLIENT_SOURCE);
  await writeFile(join(dir, "client-unchecked.ts"), unchecked);

  const program = ts.createProgram({
    rootNames: [join(dir, "client.ts"), join(dir, "client-unchecked.ts")],
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    },
  });
  const format = (d: ts.Diagnostic) => {
    const where =
      d.file && d.start !== undefined
        ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : "";
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  };
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  t.same(global.map(format), [], "no option or global diagnostics");

  const clientFile = program.getSourceFile(join(dir, "client.ts"))!;
  const clientDiags = [...program.getSyntacticDiagnostics(clientFile), ...program.getSemanticDiagnostics(clientFile)];
  t.same(
    clientDiags.map(format),
    [],
    "client.ts compiles cleanly against the generated types (every @ts-expect-error is used)",
  );

  const uncheckedFile = program.getSourceFile(join(dir, "client-unchecked.ts"))!;
  const got = program
    .getSemanticDiagnostics(uncheckedFile)
    .map((d) => ({ line: uncheckedFile.getLineAndCharacterOfPosition(d.start!).line, code: d.code, text: format(d) }));
  t.equal(
    got.length,
    EXPECTED_ERRORS.length,
    `without the directives, exactly ${EXPECTED_ERRORS.length} errors:\n${got.map((g) => g.text).join("\n")}`,
  );
  directives.forEach((line, i) => {
    const at = got.filter((g) => g.line === line + 1);
    const want = EXPECTED_ERRORS[i];
    const shown = at.map((g) => g.text).join("; ") || "nothing";
    t.same(
      at.map((g) => g.code),
      [want.code],
      `line ${line + 2}: TS${want.code}; got ${shown}`,
    );
    t.match(at[0]?.text ?? "", want.message, `line ${line + 2}: the error says ${want.message}`);
  });
});

t.test("the generated client drives a resize to completion against the service", async (t) => {
  // Runs the very file that was type-checked above (its types are stripped by Node).
  const client = (await import(pathToFileURL(join(dir, "client.ts")).href)) as ClientModule;
  const env = await startTestEnv();
  t.teardown(() => env.close());

  const outcome = await client.resizeToCompletion(env.baseUrl, "web-prod-v001", { min: 1, max: 10, desired: 5 });
  t.equal(outcome.status, 202, "POST answered 202");
  t.match(outcome.accepted, { id: String, resourceUri: `/task/${outcome.accepted.id}` }, "with a TaskRef");
  t.ok(outcome.polls >= 1, `polled GET /task/{id} ${outcome.polls} time(s)`);
  t.equal(outcome.task.status.completed, true, "the task completed");
  t.equal(outcome.task.status.failed, false, `the task did not fail: ${JSON.stringify(outcome.task.resultObjects)}`);
  t.equal(outcome.task.id, outcome.accepted.id);
  t.equal(outcome.result?.capacity?.desired, 5, "resultObjects[0].capacity.desired is 5");
  t.match(outcome.result, {
    type: "serverGroup",
    serverGroupName: "web-prod-v001",
    capacity: { min: 1, max: 10, desired: 5 },
  });

  const state = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001");
  t.equal(state.status, 200);
  t.equal(state.body.capacity.desired, 5, "Azure (the simulator) reports desired 5 afterwards");

  const bad = await client.badResize(env.baseUrl);
  t.equal(bad.status, 400, "a bad region is refused with 400");
  t.equal(bad.data, undefined, "no data on an error");
  t.match(bad.error, { statusCode: 400, error: "ValidationError", message: /region/ }, "the error is an ErrorResponse");
  t.ok(
    bad.error.details?.some((d) => d.field === "region"),
    `details name the region: ${JSON.stringify(bad.error.details)}`,
  );
});
