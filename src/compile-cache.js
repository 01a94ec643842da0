// Node's compile cache for the service: the type-stripped sources and V8's compiled code of its modules, kept
// between starts (about a fifth of start-up). Plain JavaScript, since src/main.js turns it on before the first
// TypeScript module is read; src/server.ts, run as the entry point itself, uses it too.
import { lstatSync, mkdirSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The cache's directory: one of this user's own under the temp dir, used only if nobody else can write to it (what
 * is in it runs as code). NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE, Node's own, take precedence. Undefined
 * when there is no cache of ours: start-up is slower then, and nothing else changes.
 * @returns {string | undefined}
 */
export function compileCacheDir() {
  if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const uid = process.getuid?.();
  const dir = join(tmpdir(), `vmss-ops-compile-cache${uid === undefined ? "" : `-${uid}`}`);
  try {
    mkdirSync(dir, { mode: 0o700, recursive: true });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    // An unwritable temp dir: no cache.
    return undefined;
  }
}

/**
 * Turns the cache on for the modules loaded from now on (a second call changes nothing).
 * @param {string | undefined} [dir]
 */
export function enableModuleCompileCache(dir = compileCacheDir()) {
  if (dir) enableCompileCache(dir);
}
