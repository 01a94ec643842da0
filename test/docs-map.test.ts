// docs/index.md's map of the tree names every folder of src/ and every file at its top: a folder added, moved or
// renamed without the map fails here, so the map a newcomer reads first matches the tree.
import t from "tap";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../testkit/child-service.ts";

const index = readFileSync(join(REPO, "docs/index.md"), "utf8");
const map = /```\n(src\/[\s\S]*?)```/.exec(index)?.[1] ?? "";

t.ok(map.length > 0, "docs/index.md has its map of the tree");

t.test("every top-level folder and file of src/ is on the map", async (t) => {
  for (const entry of readdirSync(join(REPO, "src"), { withFileTypes: true })) {
    const name = entry.isDirectory() ? `src/${entry.name}/` : `src/${entry.name}`;
    t.ok(map.includes(name), `${name} is on the map`);
  }
});

t.test("every folder one level further down is named on its parent's lines", async (t) => {
  for (const top of readdirSync(join(REPO, "src"), { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const sub of readdirSync(join(REPO, "src", top.name), { withFileTypes: true }).filter((e) =>
      e.isDirectory(),
    )) {
      const named = map.includes(`src/${top.name}/${sub.name}/`) || map.includes(` ${sub.name}/`);
      t.ok(named, `src/${top.name}/${sub.name}/ is on the map`);
    }
  }
});
