#!/usr/bin/env node
// The vmss-ops command. It is TypeScript run by Node 24's type stripping (src/cli/main.ts); `bin` files start
// with whatever `node` is first on PATH, which may be older. Then this launcher runs the command with the Node 24
// that the project brings (the npm package `node`), or says which Node it needs. Plain JavaScript, for any Node, and
// so that Node's compile cache (src/compile-cache.js, as the service's src/main.js uses it) is on before the first
// TypeScript module is read: a command then starts in about 40 ms instead of 90-100, without Node's type stripper.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const major = Number(process.versions.node.split(".")[0]);

if (major >= 24) {
  const { enableModuleCompileCache } = await import("../src/compile-cache.js");
  enableModuleCompileCache();
  // Imported by URL, at run time, once the Node version is known: its type is not followed.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the CLI's own module, checked by tsc where it is
  const { runFromProcess } = await import(new URL("../src/cli/main.ts", import.meta.url).href);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-call -- as above
  await runFromProcess();
} else {
  let node24;
  try {
    const candidate = join(dirname(createRequire(import.meta.url).resolve("node/package.json")), "bin", "node");
    if (existsSync(candidate)) node24 = candidate;
  } catch {
    // the package is not installed
  }
  if (!node24) {
    process.stderr.write(
      `vmss-ops: needs Node 24 or later (this is ${process.version}); run npm install in the project, or use Node 24\n`,
    );
    process.exit(2);
  }
  // This launcher again, under Node 24: the branch above, compile cache and all.
  const child = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(child.status ?? 3);
}
