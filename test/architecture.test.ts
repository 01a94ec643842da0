// The layers of src/, as a table a test enforces (the simulator's own test, test/simulator-structure.test.ts, does the
// same inside src/simulator). Every import between src/ modules counts, type imports and dynamic imports included:
//   - a module imports only from the layers its own layer may use (ALLOWED), never from one above it;
//   - no import cycles between modules, anywhere in src/.
// Where today's code breaks a rule, the edge is listed below with the reason, as an allow-list that only shrinks: a
// new edge against the table fails, and so does a listed one that no longer exists (take it off the list).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import t from "tap";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * What each layer may import. A layer is a folder of src/ or a top-level file (by its name without .ts or .js).
 * From the top: the entry point, what a start reads (the simulator's settings and the service's configuration), the
 * composition root, configuration, HTTP (api, ui), the read model and the task runner, operations, Azure, and
 * leaves (naming). Configuration reads the environment into the option types that sit beside their consumers, so
 * no consumer imports it. The simulator is separate: only the entry point starts it (embedded mode).
 */
const ALLOWED: Record<string, readonly string[]> = {
  // The entry point: plain JavaScript that turns the compile cache on before the first TypeScript module is read.
  main: ["compile-cache", "server"],
  server: ["app", "azure", "compile-cache", "config", "node-process", "simulator", "startup-config", "tasks"],
  "compile-cache": [],
  "node-process": [],
  // The service's configuration and the simulator's settings meet here, and nowhere else.
  "startup-config": ["config", "simulator"],
  app: ["api", "auth", "azure", "clouddriver", "config", "naming", "observability", "operations", "tasks", "ui"],
  config: ["api", "auth", "azure", "observability", "tasks"],
  api: ["auth", "azure", "checks", "clouddriver", "naming", "observability", "operations", "tasks"],
  ui: ["api", "auth", "azure", "observability", "tasks"],
  observability: ["azure", "tasks"],
  // Who may do what: pure decisions on the principal and the task, no HTTP.
  auth: ["tasks"],
  clouddriver: ["azure", "naming", "operations"],
  // `doctor`'s checks of an account: reads of Azure, judged by pure rules.
  checks: ["azure", "naming", "operations"],
  tasks: ["azure", "naming", "operations"],
  operations: ["azure", "naming"],
  azure: ["naming"],
  naming: [],
  simulator: [],
  // The command is a client of the API over HTTP: it knows the service only through the client package.
  cli: ["client"],
  // The client package: the API's generated types and openapi-fetch, nothing of the service.
  client: [],
};

/** Known breaks of ALLOWED, file to file, each with why it is wrong. Shrink it; never add to it. */
const KNOWN_VIOLATIONS: { from: string; to: string; reason: string }[] = [];

/** Known import cycles, each as the set of modules that import one another. Shrink it; never add to it. */
const KNOWN_CYCLES: { modules: string[]; reason: string }[] = [];

const IMPORT = /^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms;
const DYNAMIC_IMPORT = /import\(\s*"(\.[^"]+)"\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    // The service's modules are TypeScript but for the entry point and the compile cache it turns on (plain
    // JavaScript, read before any TypeScript); src/ui/static holds the status page's own scripts, for the browser.
    return path.endsWith(".ts") || (path.endsWith(".js") && !path.includes(join("ui", "static"))) ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((f) => relative(SRC, f));
const graph = new Map(
  files.map((file) => {
    const text = readFileSync(join(SRC, file), "utf8");
    const specifiers = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]);
    return [file, [...new Set(specifiers.map((s) => normalize(join(dirname(file), s))))]];
  }),
);

function layerOf(file: string): string {
  return file.includes("/") ? file.split("/")[0] : file.replace(/\.(ts|js)$/, "");
}

t.test("every module of src/ is in a layer of the table, and every import names a module that exists", async (t) => {
  t.ok(files.length > 80, `src/ was read (${files.length} modules)`);
  t.same(
    files.filter((f) => !(layerOf(f) in ALLOWED)),
    [],
    "a new folder or top-level module gets a row in ALLOWED",
  );
  const missing = [...graph].flatMap(([file, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${file} → ${d}`));
  t.same(missing, [], "imports resolve (a misread import would hide an edge)");
});

type Graph = ReadonlyMap<string, readonly string[]>;

/** Every import from a module to one in a layer its own may not use, as "from → to". */
function wrongWayImports(g: Graph): string[] {
  const found: string[] = [];
  for (const [file, deps] of g) {
    for (const dep of deps) {
      const from = layerOf(file);
      const to = layerOf(dep);
      if (from !== to && !ALLOWED[from]?.includes(to)) found.push(`${file} → ${dep}`);
    }
  }
  return found;
}

t.test("no module imports from a layer its own may not use, beyond the known violations", async (t) => {
  const found = wrongWayImports(graph);
  const known = KNOWN_VIOLATIONS.map((v) => `${v.from} → ${v.to}`);
  t.same(
    found.filter((e) => !known.includes(e)),
    [],
    "new imports against the table (move the code, or the import, to where the table allows it)",
  );
  t.same(
    known.filter((e) => !found.includes(e)),
    [],
    "known violations that are gone: take them off KNOWN_VIOLATIONS",
  );
  for (const v of KNOWN_VIOLATIONS) t.ok(v.reason.length > 20, `${v.from} → ${v.to} says why it is wrong`);
});

/** Strongly connected components (Tarjan): every group of two or more modules that import one another. */
function importCycles(g: Graph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || g.get(v)?.includes(v)) groups.push(group.sort());
    }
  };
  for (const file of g.keys()) if (!indexOf.has(file)) connect(file);
  return groups;
}

t.test("no import cycles in src/, type imports included, beyond the known ones", async (t) => {
  const found = importCycles(graph).map((group) => group.join(" ↔ "));
  const known = KNOWN_CYCLES.map((c) => [...c.modules].sort().join(" ↔ "));
  t.same(
    found.filter((c) => !known.includes(c)),
    [],
    "new import cycles",
  );
  t.same(
    known.filter((c) => !found.includes(c)),
    [],
    "known cycles that are gone: take them off KNOWN_CYCLES",
  );
});

t.test("the checks can fail: a wrong-way import and a cycle added to a copy of the graph are found", async (t) => {
  const bad = new Map(graph);
  bad.set("operations/operation.ts", [...(graph.get("operations/operation.ts") ?? []), "tasks/task.ts"]);
  bad.set("tasks/task.ts", [...(graph.get("tasks/task.ts") ?? []), "operations/operation.ts"]);
  t.ok(wrongWayImports(bad).includes("operations/operation.ts → tasks/task.ts"), "operations → tasks is upward: found");
  t.ok(
    importCycles(bad).some((group) => group.includes("operations/operation.ts") && group.includes("tasks/task.ts")),
    "the cycle is found",
  );
});
