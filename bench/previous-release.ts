// The previous release's tree, that the growth figure (bench/figures/growth.ts) starts beside this one. There are no
// tags: bench/previous-release holds the commit id of the last release that landed (written when one lands). Its tree
// is taken with `git archive` into a folder of its own, its node_modules made of links to this tree's packages (the
// same dependencies, as a release does not change them without saying so), but the simulator package that the
// service imports its settings from (node_modules/vmss-simulator, a workspace link) points into the previous tree.
// A clone without that commit (a shallow one, as CI makes by default; a source archive with no .git) has no
// previous tree to start: the figure is skipped with the reason, never failed.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "../testkit/child-service.ts";

const execFileAsync = promisify(execFile);

export const PREVIOUS_RELEASE_FILE = join(REPO, "bench", "previous-release");

export type PreviousTree = { ok: true; commit: string; tree: string } | { ok: false; reason: string };

async function git(...args: string[]): Promise<string> {
  return (await execFileAsync("git", args, { cwd: REPO, encoding: "utf8", maxBuffer: 1 << 20 })).stdout.trim();
}

/** Why the commit cannot be checked out here, or undefined when it can. */
async function unavailable(commit: string): Promise<string | undefined> {
  try {
    await git("rev-parse", "--git-dir");
  } catch {
    return "this tree is not a git clone";
  }
  try {
    await git("cat-file", "-e", `${commit}^{commit}`);
    return undefined;
  } catch {
    const shallow = await git("rev-parse", "--is-shallow-repository").catch(() => "unknown");
    return shallow === "true"
      ? `commit ${commit} is not in this shallow clone (fetch with full history: git fetch --unshallow)`
      : `commit ${commit} is not in this clone`;
  }
}

/**
 * The previous release's tree extracted into `into` (an empty folder), or why there is none; `file`: where its commit
 * id is read from.
 */
export async function previousTree(into: string, file = PREVIOUS_RELEASE_FILE): Promise<PreviousTree> {
  let commit: string;
  try {
    commit = readFileSync(file, "utf8").trim();
  } catch {
    return { ok: false, reason: `${file} cannot be read` };
  }
  if (!/^[0-9a-f]{40}$/.test(commit))
    return { ok: false, reason: `${file} holds no full commit id: ${JSON.stringify(commit)}` };
  return treeOf(commit, into);
}

/**
 * The tree of `ref` (a commit id, or any name git resolves to one) extracted into `into` as previousTree extracts the
 * previous release's, or why it cannot be.
 */
export async function treeOf(ref: string, into: string): Promise<PreviousTree> {
  const why = await unavailable(ref);
  if (why) return { ok: false, reason: why };
  const commit = await git("rev-parse", "--verify", `${ref}^{commit}`);
  const tree = join(into, "tree");
  mkdirSync(tree);
  await execFileAsync("sh", ["-c", `git archive ${commit} | tar -x -C "$1"`, "sh", tree], { cwd: REPO });
  const modules = join(tree, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(REPO, "node_modules"))) {
    if (name === "vmss-simulator") symlinkSync(join("..", "packages", "vmss-simulator"), join(modules, name));
    else symlinkSync(join(REPO, "node_modules", name), join(modules, name));
  }
  return { ok: true, commit, tree };
}
