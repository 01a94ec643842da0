// One name, one meaning: every name exported from a module of src/ is declared in one module only, so that a search
// for it lands on one thing. A re-export (`export { x } from`) is the same declaration and counts once. Where two
// modules declare the same name for the same thing, the name is listed below with the modules and the reason; the
// list only shrinks: a new name declared twice fails, and so does a listed name that no longer is (take it off).
// Names are read with the TypeScript compiler, as tsc resolves them.
import { join, relative } from "node:path";
import t from "tap";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");

const STORES = "the same statement or row type once for each SQL store (src/tasks/pg/, src/tasks/sqlite/), by one name";
const SCHEMA =
  "the API's TypeBox schema (src/api/) of the thing the code's type of the same name describes: its wire form";
const CLIENT =
  "the client package (src/client/) names the API's bodies as src/api/schemas.ts does; it is generated from the " +
  "API document and imports nothing from the service";
const COMMAND =
  "the vmss-ops command's client (src/cli/client.ts) is the client package's, with answers turned into values and " +
  "errors; same meaning, the command's form";

/** Name → the modules that declare it (sorted) and why that is one meaning. */
const SAME_MEANING: Record<string, { modules: string[]; reason: string }> = {
  appendHistory: { modules: ["src/tasks/pg/journal.ts", "src/tasks/sqlite/journal.ts"], reason: STORES },
  backlog: { modules: ["src/tasks/pg/backlog.ts", "src/tasks/sqlite/backlog.ts"], reason: STORES },
  cancelRequested: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  claim: { modules: ["src/tasks/pg/claim.ts", "src/tasks/sqlite/claim.ts"], reason: STORES },
  getTask: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  getTaskByClientRequestId: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  insertAudit: { modules: ["src/tasks/pg/audit.ts", "src/tasks/sqlite/audit.ts"], reason: STORES },
  list: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  listAudit: { modules: ["src/tasks/pg/audit.ts", "src/tasks/sqlite/audit.ts"], reason: STORES },
  migrate: { modules: ["src/tasks/pg/migrate.ts", "src/tasks/sqlite/migrate.ts"], reason: STORES },
  prune: { modules: ["src/tasks/pg/prune.ts", "src/tasks/sqlite/prune.ts"], reason: STORES },
  pruneAudit: { modules: ["src/tasks/pg/audit.ts", "src/tasks/sqlite/audit.ts"], reason: STORES },
  recordAudit: { modules: ["src/tasks/pg/audit.ts", "src/tasks/sqlite/audit.ts"], reason: STORES },
  release: { modules: ["src/tasks/pg/lease.ts", "src/tasks/sqlite/lease.ts"], reason: STORES },
  renew: { modules: ["src/tasks/pg/lease.ts", "src/tasks/sqlite/lease.ts"], reason: STORES },
  requestCancel: { modules: ["src/tasks/pg/cancel.ts", "src/tasks/sqlite/cancel.ts"], reason: STORES },
  requeueRetryable: { modules: ["src/tasks/pg/cancel.ts", "src/tasks/sqlite/cancel.ts"], reason: STORES },
  revision: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  revisions: { modules: ["src/tasks/pg/read.ts", "src/tasks/sqlite/read.ts"], reason: STORES },
  Row: { modules: ["src/tasks/pg/tables.ts", "src/tasks/sqlite/db.ts"], reason: STORES },
  sharedWriteDurations: {
    modules: ["src/tasks/pg/write-durations.ts", "src/tasks/sqlite/write-durations.ts"],
    reason: STORES,
  },
  shareWriteDurations: {
    modules: ["src/tasks/pg/write-durations.ts", "src/tasks/sqlite/write-durations.ts"],
    reason: STORES,
  },
  settleAudit: { modules: ["src/tasks/pg/audit.ts", "src/tasks/sqlite/audit.ts"], reason: STORES },
  toTask: { modules: ["src/tasks/pg/tables.ts", "src/tasks/sqlite/db.ts"], reason: STORES },
  update: { modules: ["src/tasks/pg/journal.ts", "src/tasks/sqlite/journal.ts"], reason: STORES },

  ArmRequest: { modules: ["src/api/schemas.ts", "src/azure/write-requests.ts"], reason: SCHEMA },
  AuditEntry: { modules: ["src/api/routes/audit.ts", "src/tasks/audit.ts"], reason: SCHEMA },
  LaterWrite: { modules: ["src/api/schemas.ts", "src/operations/later-writes.ts"], reason: SCHEMA },
  CreatedServerGroupResult: { modules: ["src/api/schemas.ts", "src/operations/server-group-state.ts"], reason: SCHEMA },
  DestroyedServerGroupResult: {
    modules: ["src/api/schemas.ts", "src/operations/server-group-state.ts"],
    reason: SCHEMA,
  },
  ServerGroupResult: { modules: ["src/api/schemas.ts", "src/operations/server-group-state.ts"], reason: SCHEMA },
  RegionVmSizes: { modules: ["src/api/routes/account-checks.ts", "src/cli/conformance-plan.ts"], reason: COMMAND },
  ResourceGroupContents: {
    modules: ["src/api/routes/account-checks.ts", "src/checks/resource-group-contents.ts"],
    reason: SCHEMA,
  },
  TaskActor: { modules: ["src/api/schemas.ts", "src/tasks/task.ts"], reason: SCHEMA },
  TaskState: { modules: ["src/api/schemas.ts", "src/tasks/task-state.ts"], reason: SCHEMA },
  Task: { modules: ["src/api/schemas.ts", "src/client/index.ts", "src/tasks/task.ts"], reason: `${SCHEMA}; ${CLIENT}` },

  DryRun: { modules: ["src/api/schemas.ts", "src/client/index.ts"], reason: CLIENT },
  ErrorResponse: { modules: ["src/api/schemas.ts", "src/client/index.ts"], reason: CLIENT },
  TaskList: { modules: ["src/api/schemas.ts", "src/client/index.ts"], reason: CLIENT },
  TaskRef: { modules: ["src/api/schemas.ts", "src/client/index.ts"], reason: CLIENT },
  OperationName: { modules: ["src/client/index.ts", "src/operations/operation-names.ts"], reason: CLIENT },
  operations: {
    modules: ["src/client/openapi.ts", "src/operations/registry.ts"],
    reason:
      "openapi-typescript's fixed name, in generated code, for the API document's operations: the types of the " +
      "same operations the registry holds by name",
  },

  ClientOptions: { modules: ["src/cli/client.ts", "src/client/index.ts"], reason: COMMAND },
  createClient: { modules: ["src/cli/client.ts", "src/client/index.ts"], reason: COMMAND },
  TaskQuery: {
    modules: ["src/cli/client.ts", "src/tasks/task-store.ts"],
    reason: "the filters of a task listing: GET /task's query string (the command's) and the store's, one meaning",
  },
};

/** Every name exported by a module of src/ → the modules that declare it (re-exports resolved to their source). */
function declaringModules(): Map<string, Set<string>> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error("tsconfig.json could not be read");
  const src = join(ROOT, "src") + "/";
  const files = parsed.fileNames.filter((f) => f.startsWith(src) && f.endsWith(".ts"));
  const program = ts.createProgram(files, parsed.options);
  const checker = program.getTypeChecker();
  const byName = new Map<string, Set<string>>();
  for (const file of files) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
    if (!module) continue; // a script without imports or exports
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      const declaredIn = declaration ? relative(ROOT, declaration.getSourceFile().fileName) : relative(ROOT, file);
      if (!declaredIn.startsWith("src/")) continue; // a dependency's name, re-exported
      const modules = byName.get(exported.name) ?? new Set<string>();
      modules.add(declaredIn);
      byName.set(exported.name, modules);
    }
  }
  return byName;
}

const byName = declaringModules();

t.test("the compiler sees the modules of src/ and their exports", async (t) => {
  // A broken reading (no program, no exports) would pass everything below.
  t.ok(byName.size > 500, `${byName.size} exported names`);
  t.same([...(byName.get("executeOp") ?? [])], ["src/azure/execute-op.ts"]);
});

t.test("no exported name is declared in two modules, unless listed as one meaning", async (t) => {
  const twice = [...byName].filter(([, modules]) => modules.size > 1);
  for (const [name, modules] of twice) {
    const declared = [...modules].sort();
    const listed = SAME_MEANING[name];
    if (!listed)
      t.fail(`${name} is exported from ${declared.join(" and ")}: rename one, or list it here with the reason`);
    else t.same(declared, [...listed.modules].sort(), `${name}: the modules listed are the modules declaring it`);
  }
});

t.test("every listed name is still declared twice (a list that only shrinks)", async (t) => {
  for (const [name, { reason }] of Object.entries(SAME_MEANING)) {
    t.ok((byName.get(name)?.size ?? 0) > 1, `${name} is still declared in two modules (else take it off the list)`);
    t.ok(reason.length > 20, `${name} says why it is one meaning`);
  }
});
