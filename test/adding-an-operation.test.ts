// docs/index.md's checklist for adding an operation, checked: each step's place names every operation of the
// registry (tsc checks the typed ones; this test checks them at run time too, and the prose ones), and every kind of
// write reaches the gateway's condition and the dry run's schema. The checklist itself must name each place checked.
import { readFileSync } from "node:fs";
import t from "tap";
import { DryRunOperation } from "../src/api/schemas.ts";
import { guardOf, WRITE_KINDS } from "../src/azure/vmss-gateway.ts";
import { OPERATION_NAMES } from "../src/operations/operation-names.ts";
import { operationNames, operations } from "../src/operations/registry.ts";
import { SUPPORT } from "../src/operations/scale-set-kinds.ts";
import { LATER_WRITES } from "../src/operations/later-writes.ts";
import { operationSamples } from "./helpers/operation-samples.ts";

const doc = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

/** The places the checklist sends a reader to, as its links name them. */
const PLACES = [
  "src/operations/operation-names.ts",
  "src/operations/registry.ts",
  "src/operations/scale-set-kinds.ts",
  "scale-set-kinds.md",
  "src/operations/later-writes.ts",
  "test/helpers/operation-samples.ts",
  "src/azure/arm-actions.ts",
  "src/azure/vmss-gateway.ts",
  "api.md",
];

t.test("docs/index.md's checklist names every place this test checks", async (t) => {
  const section = /### Adding an operation\n([\s\S]*?)\n###? /.exec(doc("docs/index.md"))?.[1];
  t.ok(section, "docs/index.md has the section");
  for (const place of PLACES)
    t.match(section ?? "", `(${place.startsWith("src") || place.startsWith("test") ? "../" : ""}${place})`, place);
});

t.test("1-2: the registry holds one operation of each name, under its own name", async (t) => {
  t.same(operationNames(), [...OPERATION_NAMES]);
  for (const name of OPERATION_NAMES) t.equal(operations.get(name)?.name, name, name);
});

t.test("3: the scale-set kinds table has a row for every operation, or says why none applies", async (t) => {
  const table: Record<string, unknown> = SUPPORT;
  const page = doc("docs/scale-set-kinds.md");
  for (const name of operationNames()) {
    t.ok(table[name], `${name} in SUPPORT`);
    t.match(page, `\`${name}\``, `${name} in docs/scale-set-kinds.md`);
  }
});

t.test("3: a dry run's later writes have a row for every operation", async (t) => {
  const table: Record<string, unknown> = LATER_WRITES;
  for (const name of operationNames()) t.type(table[name], "function", `${name} in LATER_WRITES`);
});

t.test("4: every operation has a sample that test/arm-actions.test.ts runs", async (t) => {
  const samples: Record<string, unknown[] | undefined> = operationSamples("00000000-0000-0000-0000-000000000000");
  for (const name of operationNames()) t.ok(samples[name]?.length, `${name} has a sample description`);
});

t.test("5: every kind of write has its condition and is in the dry run's schema", async (t) => {
  const schemaKinds = (DryRunOperation.properties.write.properties.kind.anyOf as { const: string }[]).map(
    (k) => k.const,
  );
  t.same(schemaKinds, [...WRITE_KINDS]);
  for (const kind of WRITE_KINDS) t.ok(guardOf(kind, '"1"'), `${kind} has a guard`);
});

t.test("6: docs/api.md's operations table has a row for every operation", async (t) => {
  const page = doc("docs/api.md");
  for (const name of operationNames()) t.match(page, `\n| \`${name}\` |`, name);
});
