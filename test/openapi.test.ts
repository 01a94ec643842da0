// The checked-in OpenAPI document matches the routes, and is good enough to generate a client from.
import t from "tap";
import { operationNames } from "../src/operations/registry.ts";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_OPENAPI_PATH, diffHint, generateOpenApi } from "../scripts/write-openapi.ts";
import type { Json } from "../testkit/json.ts";

const REPO = resolve(import.meta.dirname, "..");
const SCRIPT = join(REPO, "scripts", "write-openapi.ts");
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const PATH_ITEM_KEYS = new Set<string>([...HTTP_METHODS, "parameters", "summary", "description", "servers", "$ref"]);
const OPERATION_KEYS = new Set([
  "tags",
  "summary",
  "description",
  "externalDocs",
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "callbacks",
  "deprecated",
  "security",
  "servers",
]);

const generated = await generateOpenApi();
const checkedIn = await readFile(DEFAULT_OPENAPI_PATH, "utf8").catch(() => undefined);
const doc: Json = generated.document;

/** Every operation in the document, with where it is. */
function operationsOf(d: Json): { path: string; method: string; op: Json }[] {
  const out: { path: string; method: string; op: Json }[] = [];
  for (const [path, item] of Object.entries<Json>(d.paths ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

/** Every value under `key` anywhere in the tree, with its JSON pointer. */
function collect(
  node: Json,
  key: string,
  at = "#",
  out: { at: string; value: Json }[] = [],
): { at: string; value: Json }[] {
  if (Array.isArray(node)) node.forEach((v, i) => collect(v, key, `${at}/${i}`, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      const here = `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (k === key) out.push({ at: here, value: v });
      collect(v, key, here, out);
    }
  }
  return out;
}

function resolvePointer(d: Json, ref: string): Json {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((node: Json, part) => (node && typeof node === "object" ? node[part] : undefined), d);
}

function jsonSchemaOf(container: Json): Json {
  return container?.content?.["application/json"]?.schema;
}

/** A schema that a generator turns into a named type: a $ref to a component, or an array of them. */
function namedRef(schema: Json): string | undefined {
  if (typeof schema?.$ref === "string") return schema.$ref;
  if (schema?.type === "array" && typeof schema.items?.$ref === "string") return `${schema.items.$ref}[]`;
  return undefined;
}

t.test("openapi/openapi.json matches the routes", async (t) => {
  t.ok(checkedIn !== undefined, "openapi/openapi.json exists; create it with `npm run openapi`");
  if (checkedIn === undefined) return;
  const same = checkedIn === generated.text;
  if (!same) t.comment(diffHint(generated.text, checkedIn));
  t.ok(same, "openapi/openapi.json is out of date with the routes: run `npm run openapi` and commit the result");
  // Same content regardless of formatting, so a failure above that passes here means only formatting changed.
  t.same(
    JSON.parse(checkedIn),
    doc,
    "the checked-in document has the same content as the generated one (run `npm run openapi`)",
  );
  t.ok(
    generated.text.endsWith("}\n") && generated.text.includes('\n  "openapi": "3.1.0"'),
    "pretty-printed with a 2-space indent and a trailing newline",
  );
});

t.test("the document is OpenAPI 3.1, structurally", async (t) => {
  t.match(doc.openapi, /^3\.1\.\d+$/, "openapi: 3.1.x");
  t.type(doc.info?.title, "string", "info.title");
  t.type(doc.info?.version, "string", "info.version");
  t.ok(doc.info.title.length > 0 && doc.info.version.length > 0, "info.title and info.version are not empty");
  t.ok(doc.paths && typeof doc.paths === "object", "paths is an object");
  const topKeys = new Set([
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs",
  ]);
  t.same(
    Object.keys(doc).filter((k) => !topKeys.has(k) && !k.startsWith("x-")),
    [],
    "no unknown top-level fields",
  );

  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    t.match(path, /^\//, `${path} starts with /`);
    t.same(
      Object.keys(item).filter((k) => !PATH_ITEM_KEYS.has(k) && !k.startsWith("x-")),
      [],
      `${path}: only path-item fields`,
    );
    // Fastify's :name starts a segment; a colon after a parameter is literal (Clouddriver's /task/{id}:resume).
    t.notMatch(path, /\/:[A-Za-z]/, `${path}: parameters use {name}, not Fastify's :name`);
  }

  const declaredTags = new Set((doc.tags ?? []).map((tag: Json) => tag.name));
  for (const { path, method, op } of operationsOf(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    t.same(
      Object.keys(op).filter((k) => !OPERATION_KEYS.has(k) && !k.startsWith("x-")),
      [],
      `${where}: only operation fields`,
    );
    // Path templating: each {name} has exactly one required path parameter, and no path parameter is left over.
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    // A parameter shared by several operations (Prefer) is a $ref to components.parameters.
    const params: Json[] = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map((p: Json) =>
      typeof p.$ref === "string" ? resolvePointer(doc, p.$ref) : p,
    );
    const pathParams = params.filter((p) => p.in === "path");
    t.same(pathParams.map((p) => p.name).sort(), templated, `${where}: path parameters match the template`);
    for (const p of pathParams) t.equal(p.required, true, `${where}: path parameter ${p.name} is required`);
    const seen = new Set<string>();
    for (const p of params) {
      t.ok(["query", "header", "path", "cookie"].includes(p.in), `${where}: parameter ${p.name} has a valid "in"`);
      t.type(p.name, "string", `${where}: parameter has a name`);
      t.ok(p.schema && typeof p.schema === "object", `${where}: parameter ${p.name} has a schema`);
      t.notOk(seen.has(`${p.in}:${p.name}`), `${where}: parameter ${p.in}:${p.name} is not repeated`);
      seen.add(`${p.in}:${p.name}`);
    }
    t.ok(op.responses && Object.keys(op.responses).length > 0, `${where}: has responses`);
    for (const [code, response] of Object.entries<Json>(op.responses ?? {})) {
      t.match(code, /^([1-5](\d\d|XX)|default)$/, `${where}: response key ${code}`);
      t.type(response.description, "string", `${where} ${code}: has a description (required in 3.1)`);
      for (const [media, content] of Object.entries<Json>(response.content ?? {})) {
        t.ok(content.schema, `${where} ${code} ${media}: has a schema`);
      }
    }
    if (op.requestBody) t.ok(jsonSchemaOf(op.requestBody), `${where}: the request body is JSON with a schema`);
    for (const tag of op.tags ?? []) t.ok(declaredTags.has(tag), `${where}: tag ${tag} is declared at the top level`);
  }

  const schemas = doc.components?.schemas ?? {};
  t.ok(Object.keys(schemas).length > 0, "components.schemas is not empty");
  for (const name of Object.keys(schemas)) {
    t.match(name, /^[A-Za-z][A-Za-z0-9._-]*$/, `component name ${name} is valid and readable`);
    t.notMatch(name, /^def-\d+$/, `component ${name} is not an anonymous def-N (give its schema an $id)`);
  }
  // JSON Schema 2020-12, not the OpenAPI 3.0 dialect.
  t.same(
    collect(doc, "nullable").map((x) => x.at),
    [],
    "no 3.0 `nullable` (3.1 uses type arrays)",
  );
  t.same(
    [...collect(doc, "exclusiveMinimum"), ...collect(doc, "exclusiveMaximum")]
      .filter((x) => typeof x.value === "boolean")
      .map((x) => x.at),
    [],
    "exclusiveMinimum/Maximum are numbers (3.1), not booleans (3.0)",
  );
  const refs = collect(doc, "$ref").filter((x) => typeof x.value === "string");
  t.ok(refs.length > 0, "the document uses $refs");
  for (const { at, value } of refs) {
    const component = /\/parameters\/\d+\/\$ref$/.test(at) ? "parameters" : "schemas";
    t.match(
      value,
      new RegExp(`^#/components/${component}/[A-Za-z0-9._-]+$`),
      `${at}: $ref is local to components.${component}`,
    );
    t.ok(resolvePointer(doc, value) !== undefined, `${at}: $ref ${value} resolves`);
  }
});

t.test("client-generator grade: operationIds and named schemas", async (t) => {
  const ops = operationsOf(doc);
  const ids = ops.map((o) => o.op.operationId);
  for (const { path, method, op } of ops) {
    t.match(
      op.operationId,
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      `${method.toUpperCase()} ${path} has an identifier-safe operationId`,
    );
  }
  t.equal(new Set(ids).size, ids.length, `operationIds are unique: ${ids.join(", ")}`);

  // Every JSON request and response body anywhere is a named component (or an array of them).
  for (const { path, method, op } of ops) {
    const where = `${method.toUpperCase()} ${path}`;
    if (op.requestBody) t.ok(namedRef(jsonSchemaOf(op.requestBody)), `${where}: request body is a named schema`);
    for (const [code, response] of Object.entries<Json>(op.responses)) {
      const schema = jsonSchemaOf(response);
      if (schema) t.ok(namedRef(schema), `${where} ${code}: response is a named schema, not an inline object`);
    }
  }

  const byId = new Map(ops.map((o) => [o.op.operationId, o]));
  const ref = (name: string) => `#/components/schemas/${name}`;
  const expectOp = (operationId: string, method: string, path: string) => {
    const o = byId.get(operationId);
    t.ok(o, `operation ${operationId} exists`);
    if (o) t.same([o.method, o.path], [method, path], `${operationId} is ${method.toUpperCase()} ${path}`);
    return o?.op;
  };
  const responseRef = (op: Json, code: string) => namedRef(jsonSchemaOf(op?.responses?.[code]));

  for (const name of ["resizeServerGroup", "disableServerGroup", "enableServerGroup", "scaleDown"]) {
    const op = expectOp(name, "post", `/azure/ops/${name}`);
    t.equal(
      namedRef(jsonSchemaOf(op?.requestBody)),
      ref(`${name[0].toUpperCase()}${name.slice(1)}Description`),
      `${name}: body is its description`,
    );
    t.equal(op?.requestBody?.required, true, `${name}: body is required`);
    t.equal(responseRef(op, "202"), ref("TaskRef"), `${name}: 202 → TaskRef`);
    t.equal(responseRef(op, "400"), ref("ErrorResponse"), `${name}: 400 → ErrorResponse`);
    t.equal(responseRef(op, "409"), ref("ErrorResponse"), `${name}: 409 → ErrorResponse`);
    const query = (op?.parameters ?? []).find((p: Json) => p.in === "query" && p.name === "clientRequestId");
    t.ok(query && query.required !== true, `${name}: optional ?clientRequestId`);
  }
  const submit = expectOp("submitOperations", "post", "/azure/ops");
  t.equal(
    namedRef(jsonSchemaOf(submit?.requestBody)),
    `${ref("OperationEnvelope")}[]`,
    "submitOperations: body is OperationEnvelope[]",
  );
  t.equal(responseRef(submit, "202"), ref("TaskRef"), "submitOperations: 202 → TaskRef");
  t.equal(responseRef(submit, "400"), ref("ErrorResponse"), "submitOperations: 400 → ErrorResponse");

  const getTask = expectOp("getTask", "get", "/task/{id}");
  t.equal(responseRef(getTask, "200"), ref("Task"), "getTask: 200 → Task");
  t.equal(responseRef(getTask, "404"), ref("ErrorResponse"), "getTask: 404 → ErrorResponse");
  t.equal(responseRef(expectOp("listTasks", "get", "/task"), "200"), ref("TaskList"), "listTasks: 200 → TaskList");
  const getServerGroup = expectOp(
    "getServerGroup",
    "get",
    "/azure/serverGroups/{account}/{region}/{resourceGroup}/{name}",
  );
  t.equal(responseRef(getServerGroup, "200"), ref("ServerGroup"), "getServerGroup: 200 → ServerGroup");
  t.equal(responseRef(getServerGroup, "404"), ref("ErrorResponse"), "getServerGroup: 404 → ErrorResponse");
  t.equal(responseRef(expectOp("getHealth", "get", "/health"), "200"), ref("Health"), "getHealth: 200 → Health");
  t.equal(
    responseRef(expectOp("unknownOperation", "post", "/azure/ops/{operation}"), "404"),
    ref("ErrorResponse"),
    "unknownOperation: 404 → ErrorResponse",
  );

  const envelope = doc.components.schemas.OperationEnvelope;
  t.same(
    Object.keys(envelope?.properties ?? {}).sort(),
    operationNames().sort(),
    "OperationEnvelope names every operation",
  );
  t.same(
    doc.components.schemas.ErrorResponse?.required,
    ["statusCode", "error", "message"],
    "ErrorResponse requires statusCode, error, message",
  );
  t.same(doc.paths["/openapi.json"], undefined, "/openapi.json itself is hidden");
});

t.test("write-openapi --check", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "vmss-openapi-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const run = (file: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, [SCRIPT, "--check"], {
        cwd: REPO,
        env: { ...process.env, OPENAPI_FILE: file },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (b) => (stdout += b));
      child.stderr.on("data", (b) => (stderr += b));
      child.on("error", fail);
      child.on("close", (code) => done({ code, stdout, stderr }));
    });

  const good = join(dir, "good.json");
  const tampered = join(dir, "tampered.json");
  await writeFile(good, generated.text);
  await writeFile(tampered, generated.text.replace('"operationId": "getTask"', '"operationId": "fetchTask"'));
  const [ok, drifted, missing] = await Promise.all([run(good), run(tampered), run(join(dir, "absent.json"))]);

  t.equal(ok.code, 0, `an up-to-date file passes: ${ok.stderr}`);
  t.match(ok.stdout, /up to date/);
  t.equal(drifted.code, 1, "a drifted file fails");
  t.match(drifted.stderr, /out of date.*npm run openapi/, "says what to run");
  t.match(drifted.stderr, /first difference at line \d+/, "with a diff hint");
  t.match(drifted.stderr, /- +"operationId": "getTask"/, "showing the generated line");
  t.match(drifted.stderr, /\+ +"operationId": "fetchTask"/, "and the checked-in line");
  t.equal(missing.code, 1, "a missing file fails");
  t.match(missing.stderr, /does not exist.*npm run openapi/);
});

t.test("diffHint", async (t) => {
  t.equal(diffHint("a\nb\n", "a\nb\n"), "(no difference)");
  const hint = diffHint("a\nb\nc\nd\n", "a\nB\nc\nd\n");
  t.match(hint, /first difference at line 2/);
  t.match(hint, /^- b$/m);
  t.match(hint, /^\+ B$/m);
  t.notMatch(hint, /^[-+] c$/m, "the common tail is not repeated");
});
