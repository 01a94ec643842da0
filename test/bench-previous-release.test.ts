// The growth figure's previous release: bench/previous-release names a commit of this clone, whose tree is extracted
// beside this one with its own simulator package; a commit the clone lacks (a shallow clone) is a reason to skip,
// said in a sentence, never an exception.
import t, { type Test } from "tap";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PREVIOUS_RELEASE_FILE, previousTree } from "../bench/previous-release.ts";
import { REPO } from "../testkit/child-service.ts";

function fresh(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-previous-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test("the file holds a full commit id", async (t) => {
  t.match(readFileSync(PREVIOUS_RELEASE_FILE, "utf8"), /^[0-9a-f]{40}\n$/);
});

t.test("a commit this clone lacks is a reason to skip, not an error", async (t) => {
  const dir = fresh(t);
  const file = join(dir, "previous-release");
  writeFileSync(file, "0123456789abcdef0123456789abcdef01234567\n");
  const got = await previousTree(join(dir, "x"), file);
  t.equal(got.ok, false);
  if (!got.ok) t.match(got.reason, /commit 0123456789abcdef0123456789abcdef01234567 is not in this (shallow )?clone/);
  writeFileSync(file, "e51a1af\n");
  const short = await previousTree(join(dir, "x"), file);
  t.match(short, { ok: false, reason: /holds no full commit id/ });
});

t.test("a commit of this clone: its tree, this tree's packages, its own simulator", async (t) => {
  const dir = fresh(t);
  const file = join(dir, "previous-release");
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO, encoding: "utf8" }).trim();
  writeFileSync(file, head);
  const got = await previousTree(dir, file);
  if (!got.ok) return t.fail(got.reason);
  t.equal(got.commit, head);
  t.ok(existsSync(join(got.tree, "src", "main.js")), "the tree's entry point");
  t.equal(realpathSync(join(got.tree, "node_modules", "fastify")), realpathSync(join(REPO, "node_modules", "fastify")));
  t.equal(
    realpathSync(join(got.tree, "node_modules", "vmss-simulator")),
    realpathSync(join(got.tree, "packages", "vmss-simulator")),
  );
});
