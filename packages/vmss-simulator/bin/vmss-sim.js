#!/usr/bin/env node
// vmss-sim: the ARM simulator alone. Plain JavaScript so that an older `node` first on PATH gets a sentence instead of
// a syntax error. Installed from a package, it runs the JavaScript compiled at packing (dist/); in a checkout, its
// TypeScript sources, which only Node 24's type stripping runs (Node strips no types under node_modules).
import { existsSync } from "node:fs";

const installed = new URL(import.meta.url).pathname.split("/").includes("node_modules");
const compiled = new URL("../dist/main.js", import.meta.url);
const major = Number(process.versions.node.split(".")[0]);
if (installed && !existsSync(compiled)) {
  console.error("vmss-sim: this copy has no dist/ (it is built by `npm pack`, from the package's folder)");
  process.exit(2);
}
if (!installed && major < 24) {
  console.error(
    `vmss-sim: needs Node 24 or later to run its TypeScript sources (this is ${process.version}); or install the package made by \`npm pack\``,
  );
  process.exit(2);
}
// Imported by URL, at run time, once the Node version is known: its type is not followed.
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the package's own module, checked by tsc where it is
const { runSimulator } = await import(installed ? compiled.href : new URL("../src/main.ts", import.meta.url).href);
// eslint-disable-next-line @typescript-eslint/no-unsafe-call -- as above
await runSimulator(process.argv.slice(2), process.env);
