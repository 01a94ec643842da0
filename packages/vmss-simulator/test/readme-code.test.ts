// Every code block of this package's README that a reader will paste runs here, as written: each `ts` block as a
// module of its own, by Node, against a simulator this test starts (the README's https://127.0.0.1:7003 swapped for
// its address). Blocks that start a long-running process are fenced `shell`, and only counted.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { startSimulator } from "vmss-simulator";

const PACKAGE = join(import.meta.dirname, "..");
const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
  lang: m[1].trim(),
  body: m[2],
}));

t.test("the README's blocks are ts, run below, or shell, shown only", async (t) => {
  t.same(
    blocks.filter((b) => b.lang !== "ts" && b.lang !== "shell"),
    [],
  );
  t.equal(blocks.filter((b) => b.lang === "ts").length, 2, "two blocks to run");
});

t.test("each ts block runs to its end against a simulator", async (t) => {
  const sim = await startSimulator({ seed: true, port: 0 });
  // Inside the package, so that its imports resolve as a reader's would (vmss-simulator, @azure/arm-compute).
  const dir = mkdtempSync(join(PACKAGE, ".readme-run-"));
  t.teardown(async () => {
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
  });
  for (const [i, block] of blocks.filter((b) => b.lang === "ts").entries()) {
    const file = join(dir, `block-${i}.ts`);
    // A block ends by itself or leaves a client's keep-alive connection open: it has run when its last line has.
    writeFileSync(
      file,
      `${block.body.replaceAll("https://127.0.0.1:7003", sim.url)}\nconsole.log("block ran");\nprocess.exit(0);\n`,
    );
    // Not spawnSync: the simulator answers from this process's event loop.
    const run = await promisify(execFile)(process.execPath, [file], { encoding: "utf8", timeout: 60_000 }).catch(
      (err: { code?: number; stdout: string; stderr: string }) => ({ ...err, failed: err.code ?? "killed" }),
    );
    t.equal("failed" in run ? run.failed : 0, 0, `block ${i} ran: ${run.stderr}`);
    t.match(run.stdout, "block ran", `block ${i} reached its end`);
  }
});
