// Writes test/fixtures/arm-spec/<api-version>.json from an unpacked classic @azure/arm-compute npm package (the
// AutoRest-generated majors up to 22, each generated from one api-version of azure-rest-api-specs' Compute
// specification): every operation's path, method, request body and answers, and the definitions those reach, with
// their wire names, types, constraints and read-only marks. The simulator's specification check
// (test/simulator-spec.test.ts) reads these files, so it runs offline.
//
//   npm pack @azure/arm-compute@19.2.0 && tar xzf azure-arm-compute-19.2.0.tgz -C /tmp/arm-compute-19.2.0
//   node scripts/write-arm-spec.ts /tmp/arm-compute-19.2.0/package
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

interface Spec {
  path: string;
  httpMethod: string;
  responses: Record<string, { bodyMapper?: { type: { className?: string; name: string } } }>;
  requestBody?: { mapper?: { type: { className?: string; name: string } } };
  queryParameters?: { mapper: { serializedName: string; defaultValue?: string } }[];
}

const packageDir = resolve(process.argv[2] ?? "");
const esm = [join(packageDir, "dist-esm/src"), join(packageDir, "dist/esm")].find((d) => existsSync(d));
if (!esm) throw new Error(`no dist-esm/src or dist/esm under ${packageDir}`);
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { name: string; version: string };

// Older majors' ES modules import relative paths without an extension, which Node does not resolve: add it (the package
// is an unpacked scratch copy).
for (const dir of ["models", "operations", "."]) {
  for (const file of readdirSync(join(esm, dir)).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(join(esm, dir, file), "utf8");
    const fixed = text.replace(/from "(\.{1,2}\/[^"]+?)(?<!\.js)"/g, (_, p: string) =>
      existsSync(join(esm, dir, `${p}.js`)) ? `from "${p}.js"` : `from "${p}/index.js"`,
    );
    if (fixed !== text) writeFileSync(join(esm, dir, file), fixed);
  }
}

/** A body's definition: a class name, or an inline type (a list of strings, a dictionary) kept under a made-up name. */
const inline: Record<string, unknown> = {};
const mappers = (await import(pathToFileURL(join(esm, "models/mappers.js")).href)) as Record<string, unknown>;
const operations: {
  group: string;
  name: string;
  method: string;
  path: string;
  apiVersion: string;
  request?: string;
  responses: Record<string, string | null>;
}[] = [];
for (const file of readdirSync(join(esm, "operations")).filter((f) => f.endsWith(".js") && f !== "index.js")) {
  const source = readFileSync(join(esm, "operations", file), "utf8");
  const names = [...source.matchAll(/^const (\w+OperationSpec) = \{/gm)].map((m) => m[1]);
  if (names.length === 0) continue;
  // The specs are module-private constants: a copy of the module beside it exports them.
  const copy = join(esm, "operations", `.specs-${file}`);
  writeFileSync(copy, `${source}\nexport { ${names.join(", ")} };\n`);
  try {
    const mod = (await import(pathToFileURL(copy).href)) as Record<string, Spec>;
    for (const name of names) {
      const spec = mod[name];
      const version = spec.queryParameters?.find((p) => p.mapper.serializedName === "api-version")?.mapper.defaultValue;
      if (!version) continue;
      const responses: Record<string, string | null> = {};
      for (const [status, r] of Object.entries(spec.responses))
        responses[status] = r.bodyMapper ? mapperName(r.bodyMapper) : null;
      operations.push({
        group: file.replace(/\.js$/, ""),
        name: name.replace(/OperationSpec$/, ""),
        method: spec.httpMethod,
        path: spec.path,
        apiVersion: version,
        ...(spec.requestBody?.mapper ? { request: mapperName(spec.requestBody.mapper) } : {}),
        responses,
      });
    }
  } finally {
    rmSync(copy);
  }
}

function mapperName(mapper: { type: { className?: string; name: string } }): string {
  if (mapper.type.className && mappers[mapper.type.className]) return mapper.type.className;
  const name = `inline:${createHash("sha1").update(JSON.stringify(mapper)).digest("hex").slice(0, 12)}`;
  inline[name] = mapper;
  return name;
}

// The compute operations (one api-version per file); definitions: what those reach.
const apiVersion = operations.filter((o) => o.group === "virtualMachineScaleSets")[0]?.apiVersion;
if (!apiVersion) throw new Error("no virtualMachineScaleSets operations found");
// The package's other api-versions (resource SKUs, disks, galleries) are kept too, each operation with its own.
const kept = operations;
const definitions: Record<string, unknown> = {};
const pending = [
  ...new Set(kept.flatMap((o) => [o.request, ...Object.values(o.responses)]).filter((n): n is string => !!n)),
];
while (pending.length > 0) {
  const name = pending.pop() as string;
  if (name in definitions) continue;
  const mapper = mappers[name] ?? inline[name];
  if (!mapper) throw new Error(`definition ${name} not found`);
  definitions[name] = mapper;
  JSON.stringify(mapper, (key, value: unknown) => {
    if (key === "className" && typeof value === "string" && !(value in definitions)) pending.push(value);
    if (key === "uberParent" && typeof value === "string" && !(value in definitions)) pending.push(value);
    return value;
  });
}
// Polymorphic children are found through their parent's discriminator: keep every definition with a kept uberParent.
for (const [name, mapper] of Object.entries(mappers)) {
  const parent = (mapper as { type?: { uberParent?: string } }).type?.uberParent;
  if (parent && parent in definitions && !(name in definitions)) definitions[name] = mapper;
}

const tarball = `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.version}.tgz`;
const out = {
  apiVersion,
  source: {
    package: `${pkg.name}@${pkg.version}`,
    note: `Generated by AutoRest from azure-rest-api-specs, specification/compute/resource-manager, api-version ${apiVersion}; written by scripts/write-arm-spec.ts from ${tarball}`,
  },
  operations: kept,
  definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))),
};
const target = resolve(import.meta.dirname, "../test/fixtures/arm-spec", `${apiVersion}.json`);
writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${target}: ${kept.length} operations, ${Object.keys(definitions).length} definitions`);
