// The package's entries (index.js, settings.js) load its sources in a checkout and its compiled JavaScript once
// installed (test/package-install.test.ts); each names what it re-exports, so each is held here to its source's
// exports, in both directions.
import t from "tap";

for (const [entry, source] of [
  ["../index.js", "../src/index.ts"],
  ["../settings.js", "../src/settings.ts"],
] as const) {
  t.test(`${entry} exports what ${source} exports, the same values`, async (t) => {
    const shim = (await import(entry)) as Record<string, unknown>;
    const real = (await import(source)) as Record<string, unknown>;
    t.same(Object.keys(shim).sort(), Object.keys(real).sort());
    for (const name of Object.keys(real)) t.equal(shim[name], real[name], name);
  });
}
