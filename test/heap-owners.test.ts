// bench/heap-owners.ts: what holds a heap snapshot's memory. A process keeps 4 MB behind one object of a named
// class, and 2 MB that it and a global both point at; the tool must name the class as holding its 4 MB, no more.
import t from "tap";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../testkit/child-service.ts";

t.test("heap-owners names the object that keeps memory alive, and its retained size", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-heap-owners-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // The holder also points at a 2 MB object that a global points at too: that one is not the holder's alone.
  const program = `
    const rows = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: 128 }, (_, j) => i + j + 0.5));
    class SharedTwoMegabytes { constructor() { this.rows = rows(2048); } }
    class HoldsFourMegabytes { constructor(shared) { this.rows = rows(4096); this.shared = shared; } }
    const shared = new SharedTwoMegabytes();
    globalThis.kept = { holder: new HoldsFourMegabytes(shared) };
    globalThis.alsoShared = shared;
    require("node:v8").writeHeapSnapshot(${JSON.stringify(join(dir, "h.heapsnapshot"))});`;
  execFileSync(process.execPath, ["-e", program]);
  t.same(readdirSync(dir), ["h.heapsnapshot"]);
  const out = execFileSync(
    process.execPath,
    [
      "--max-old-space-size=4096",
      join(REPO, "bench", "heap-owners.ts"),
      join(dir, "h.heapsnapshot"),
      "--min-kb",
      "1000",
    ],
    { encoding: "utf8" },
  );
  const line = out.split("\n").find((l) => l.includes("object HoldsFourMegabytes"));
  t.ok(line, `the holder is listed:\n${out}`);
  const mb = Number(line!.trim().split(/\s+/)[0]);
  t.ok(mb >= 3.9 && mb < 5, `it retains its 4,096 arrays of 128 numbers (1 KB each) and the array of them: ${mb} MB`);
  const shared = out.split("\n").find((l) => l.includes("object SharedTwoMegabytes"));
  t.match(
    shared,
    /^\s+2\.\d\d {2}object SharedTwoMegabytes {2}<- synthetic/,
    "what two hold is listed on its own, held by the roots, and not counted in the holder's 4 MB",
  );
});
