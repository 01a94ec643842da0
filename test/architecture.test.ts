// The layers of src/, as a table a test enforces (the simulator's package checks its own structure:
// packages/vmss-simulator/test/simulator-structure.test.ts). Every import between src/ modules counts, type imports
// and dynamic imports included:
//   - a module imports only from the layers its own layer may use (ALLOWED), never from one above it;
//   - no import cycles between modules, anywhere in src/.
// Where today's code breaks a rule, the edge is listed below with the reason, as an allow-list that only shrinks: a
// new edge against the table fails, and so does a listed one that no longer exists (take it off the list).
// The simulator is a package of its own (packages/vmss-simulator): src/ reaches it only by its name and through its
// public entries, never by a path, and only from the modules that start it or read its settings.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import t from "tap";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * What each layer may import. A layer is a folder of src/ or a top-level file (by its name without .ts or .js).
 * From the top: the entry point, what a start reads (the simulator's settings and the service's configuration), the
 * composition root, configuration, HTTP (api, ui), the read model and the task runner, operations, Azure, and
 * leaves (naming). Configuration reads the environment into the option types that sit beside their consumers, so
 * no consumer imports it. The simulator is a package apart (SIMULATOR_PACKAGE_USERS below).
 */
const ALLOWED: Record<string, readonly string[]> = {
  // The entry point: plain JavaScript that turns the compile cache on before the first TypeScript module is read.
  main: ["compile-cache", "server"],
  server: ["app", "azure", "compile-cache", "config", "node-process", "startup-config", "tasks", "tracing"],
  "compile-cache": [],
  "node-process": [],
  // The service's configuration and the simulator's settings meet here, and nowhere else.
  "startup-config": ["config"],
  app: [
    "api",
    "auth",
    "azure",
    "clouddriver",
    "config",
    "naming",
    "observability",
    "operations",
    "tasks",
    "tracing",
    "ui",
  ],
  config: ["api", "auth", "azure", "observability", "tasks"],
  api: ["auth", "azure", "checks", "clouddriver", "naming", "observability", "operations", "tasks", "tracing"],
  ui: ["api", "auth", "azure", "clouddriver", "naming", "observability", "tasks"],
  observability: ["azure", "tasks", "tracing"],
  // Who may do what: pure decisions on the principal and the task, no HTTP.
  auth: ["tasks"],
  clouddriver: ["azure", "naming", "operations"],
  // `doctor`'s checks of an account: reads of Azure, judged by pure rules.
  checks: ["azure", "naming", "operations"],
  tasks: ["azure", "naming", "operations", "tracing"],
  operations: ["azure", "naming"],
  azure: ["naming", "tracing"],
  // Spans, through OpenTelemetry's API (and its SDK, started by the server when asked): used by every layer above.
  tracing: [],
  naming: [],
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

/** The simulator's package, by name: every way a module can name it (import, dynamic import, import.meta.resolve). */
const PACKAGE = "vmss-simulator";
const PACKAGE_SPECIFIER = /(?:from\s+|import\(\s*|import\.meta\.resolve\(\s*)"(vmss-simulator(?:\/[^"]*)?)"/g;

/**
 * Which modules of src/ may name the simulator's package, and which of its entries. The embedded demo starts it
 * (server.ts, dynamically: only with SIMULATOR=embedded); a start reads its settings (startup-config.ts, and
 * server.ts for their type); the simulator accounts trust its certificate (config/simulator.ts).
 */
const SIMULATOR_PACKAGE_USERS: Record<string, readonly string[]> = {
  "server.ts": [PACKAGE, `${PACKAGE}/settings`],
  "startup-config.ts": [`${PACKAGE}/settings`],
  "config/simulator.ts": [`${PACKAGE}/ca-cert.pem`],
};

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

/** Every module of src/ that names the simulator's package → the specifiers it uses. */
const packageUses = new Map(
  files
    .map((file) => {
      const text = readFileSync(join(SRC, file), "utf8");
      return [file, [...new Set([...text.matchAll(PACKAGE_SPECIFIER)].map((m) => m[1]))]] as const;
    })
    .filter(([, specifiers]) => specifiers.length > 0),
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

t.test(
  "src/ has no path into the simulator's package but its public entries, and only where it is started",
  async (t) => {
    // A relative import that leaves src/ (into packages/, say) would not be in the graph: "imports resolve" above
    // fails for it, and this names it.
    const outside = [...graph].flatMap(([file, deps]) =>
      deps.filter((d) => d.startsWith("..")).map((d) => `${file} → ${d}`),
    );
    t.same(outside, [], "no module of src/ imports a file outside src/ by its path");
    t.same(
      Object.fromEntries([...packageUses].map(([file, specifiers]) => [file, [...specifiers].sort()])),
      Object.fromEntries(Object.entries(SIMULATOR_PACKAGE_USERS).map(([file, entries]) => [file, [...entries].sort()])),
      "the modules that name the simulator's package, and the entries each uses",
    );
  },
);

t.test(
  "the package's exports are its public entries, and the module system refuses any other path into it",
  async (t) => {
    const manifest = JSON.parse(readFileSync(join(SRC, "..", "packages", PACKAGE, "package.json"), "utf8")) as {
      exports: Record<string, string>;
    };
    t.same(Object.keys(manifest.exports).sort(), [".", "./ca-cert.pem", "./package.json", "./settings"]);
    for (const entry of Object.keys(manifest.exports)) {
      const specifier = entry === "." ? PACKAGE : `${PACKAGE}/${entry.slice(2)}`;
      t.doesNotThrow(() => import.meta.resolve(specifier), `${specifier} resolves`);
    }
    for (const internal of [
      `${PACKAGE}/src/state.ts`,
      `${PACKAGE}/src/simulator.ts`,
      `${PACKAGE}/src/tls/simulator-key.pem`,
    ]) {
      // Node's error carries the code; under tap's coverage hooks the same refusal comes as a message naming it.
      let refusal: unknown;
      try {
        import.meta.resolve(internal);
      } catch (err) {
        refusal = err;
      }
      const code = (refusal as { code?: unknown } | undefined)?.code;
      const said = `${typeof code === "string" ? code : ""} ${String(refusal)}`;
      t.match(said, /ERR_PACKAGE_PATH_NOT_EXPORTED/, `${internal} is refused`);
    }
  },
);

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
