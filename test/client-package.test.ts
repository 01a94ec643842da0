// The client package (src/client): its generated types are what openapi/openapi.json gives, a plain install has its
// runtime, and the TypeScript program docs/api.md shows compiles under --strict against it and runs, as written,
// against a real service and simulator.
import t from "tap";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { CLIENT_TYPES_PATH, generateClientTypes } from "../scripts/write-client.ts";
import { REPO } from "../testkit/child-service.ts";
import { fences } from "./helpers/doc-commands.ts";
import { startTestEnv } from "./helpers/service.ts";

interface PackageJson {
  name: string;
  exports: Record<string, string>;
  dependencies?: Record<string, string>;
}

void t.test("the package's types are what openapi/openapi.json gives (npm run client)", async (t) => {
  t.ok(
    (await readFile(CLIENT_TYPES_PATH, "utf8")) === (await generateClientTypes()),
    "src/client/openapi.ts is generated from the current openapi/openapi.json (if not: npm run client, after npm run openapi)",
  );
});

void t.test("a plain install has the package's runtime: its dependencies are the project's", async (t) => {
  const pkg = JSON.parse(await readFile(join(REPO, "src", "client", "package.json"), "utf8")) as PackageJson;
  const root = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as PackageJson;
  t.equal(pkg.name, "@vmss-ops/client");
  t.same(pkg.exports, { ".": "./index.ts" });
  for (const [name, range] of Object.entries(pkg.dependencies ?? {}))
    t.equal(root.dependencies?.[name], range, `${name} ${range} is a dependency of the project, not a dev one`);
});

/** The one ```ts block of docs/api.md: a program a reader copies. */
async function docsProgram(): Promise<string> {
  const blocks = fences(await readFile(join(REPO, "docs", "api.md"), "utf8")).filter((f) => f.lang === "ts");
  if (blocks.length !== 1) throw new Error(`docs/api.md has ${blocks.length} ts blocks, expected one`);
  return blocks[0].body;
}

/** A project of a reader's: the program, and the package installed as `npm install <repo>/src/client` links it. */
async function readersProject(program: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "vmss-client-reader-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, "node_modules", "@vmss-ops"), { recursive: true });
  await symlink(join(REPO, "src", "client"), join(dir, "node_modules", "@vmss-ops", "client"), "dir");
  await symlink(join(REPO, "node_modules", "@types"), join(dir, "node_modules", "@types"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "reader", private: true, type: "module" }));
  await writeFile(join(dir, "program.ts"), program);
  return dir;
}

void t.test("docs/api.md's TypeScript program", async (t) => {
  const dir = await readersProject(await docsProgram());

  await t.test("compiles under --strict, with no cast and no hand-written fetch", async (t) => {
    const source = await readFile(join(dir, "program.ts"), "utf8");
    t.notMatch(source, /\bas\s+(unknown|any|never)\b|<any>|\bfetch\(/, "no cast, no fetch of its own");
    const program = ts.createProgram({
      rootNames: [join(dir, "program.ts")],
      options: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ["node"],
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
      },
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${d.file?.fileName.slice(dir.length + 1) ?? ""}:${at} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    t.same(diagnostics, [], "no diagnostics");
  });

  await t.test("runs against the service, as written", async (t) => {
    const env = await startTestEnv({ writeDurationMs: 40 });
    t.teardown(() => env.close());
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [join(dir, "program.ts")], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", VMSS_OPS_URL: env.baseUrl },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("exit", (code) => resolve({ code, out }));
    });
    t.equal(run.code, 0, run.out);
    t.match(run.out, /^dry run: would set capacity 3 → 4/m, "the plan");
    t.match(run.out, /^task [0-9a-f-]+: succeeded; Azure confirmed capacity 4$/m, "the resize, waited for");
    t.match(run.out, /^refused: 400 capcity: is not a field of scaleDown[^\n]*did you mean capacity\?$/m);
    const sg = await env.api<{ capacity: { desired: number } }>(
      "GET",
      "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001",
    );
    t.equal(sg.body.capacity.desired, 4, "Azure has it");
  });
});
