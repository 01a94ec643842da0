#!/usr/bin/env node
// vmss-sim: the ARM simulator alone. Plain JavaScript so that an older `node` first on PATH gets a sentence instead of
// a syntax error: the simulator is TypeScript, run by Node 24's type stripping.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(
    `vmss-sim: needs Node 24 or later (it runs its TypeScript sources directly); this is ${process.version}`,
  );
  process.exit(2);
}
// Imported by URL, at run time, once the Node version is known: its type is not followed.
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the package's own module, checked by tsc where it is
const { runSimulator } = await import(new URL("../src/main.ts", import.meta.url).href);
// eslint-disable-next-line @typescript-eslint/no-unsafe-call -- as above
await runSimulator(process.argv.slice(2), process.env);
