// The simulator's module structure: no import cycles (type imports included), and nothing imported from outside its
// package's src/, so that `vmss-sim` starts without the service and the package ships alone.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import t from "tap";

const SIM = join(import.meta.dirname, "..", "src");
const IMPORT = /^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1])));
}

const files = readdirSync(SIM)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => join(SIM, f));
const graph = new Map(files.map((f) => [f, importsOf(f)]));

t.test("the package's src/ imports nothing outside itself", async (t) => {
  for (const [file, deps] of graph) {
    const outside = deps.filter((d) => relative(SIM, d).startsWith(".."));
    t.same(outside, [], `${relative(SIM, file)} imports only simulator modules`);
  }
});

t.test("the package's src/ has no import cycles", async (t) => {
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "visiting");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === "visiting")
        cycles.push([...stack.slice(stack.indexOf(dep)), dep].map((f) => relative(SIM, f)).join(" → "));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  t.ok(files.length > 10, "the simulator's files were found");
  t.same(cycles, []);
});

t.test("the package's tests import nothing outside the package: it is tested on its own files", async (t) => {
  const TEST = join(import.meta.dirname);
  const PACKAGE = join(TEST, "..");
  const testFiles = [
    ...readdirSync(TEST)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(TEST, f)),
    ...readdirSync(join(TEST, "helpers"))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(TEST, "helpers", f)),
  ];
  for (const file of testFiles) {
    const outside = importsOf(file).filter((d) => relative(PACKAGE, d).startsWith(".."));
    t.same(outside, [], `${relative(PACKAGE, file)} imports only the package's files`);
    t.notMatch(
      readFileSync(file, "utf8"),
      /"\.\.", "\.\.", "\.\."/,
      `${relative(PACKAGE, file)} reads no file above the package`,
    );
  }
});

t.test("every store a world keeps in a module of its own is in the snapshot that --state writes", async (t) => {
  // A module holding resources per world (a WeakMap keyed by SimState) that world-snapshot.ts does not import would
  // be served as usual and silently lost at every restart with --state.
  const all = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? all(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  const snapshot = join(SIM, "world-snapshot.ts");
  const kept = new Set(importsOf(snapshot).map((f) => f.replace(/\.ts$/, "")));
  // minimal-resources.ts makes a store for each type defined with it: the defining module is the one to keep.
  const factory = join(SIM, "minimal-resources.ts");
  const stores = all(SIM).filter(
    (f) => f !== factory && /new WeakMap<SimState\b|minimalResource(<[^>]*>)?\(\{/.test(readFileSync(f, "utf8")),
  );
  t.ok(stores.length > 5, `${stores.length} modules keep a store per world`);
  for (const file of stores)
    t.ok(kept.has(file.replace(/\.ts$/, "")), `${relative(SIM, file)}'s store is imported by world-snapshot.ts`);
});
