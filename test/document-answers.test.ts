// The document and the answers cannot disagree. For every operation in openapi/openapi.json, fast-check makes
// requests from the document (valid ones, Orca-shaped ones with nulls and Orca's own fields, dry runs, ?wait=,
// Prefer: handling=strict where the document declares it, and invalid ones: wrong types, missing fields, junk,
// over-long path parameters, another content type), sends them to the service on the simulator, and checks each
// answer: no 5xx but 503, a status the operation declares (not only by its `default`), and a body that the schema
// the document gives for that status accepts (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 has it). Bounded and seeded: DOCUMENT_FUZZ_SEED=<seed> replays a run; the seed is printed.
import t from "tap";
import fc from "fast-check";
import { readFile } from "node:fs/promises";
import { Ajv2020 } from "ajv/dist/2020.js";
import { request } from "undici";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import type { Json } from "../testkit/json.ts";
import { demo, startTestEnv, demoCreate } from "./helpers/service.ts";

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;
/** Requests per operation: about 330 in all, a few minutes on a busy machine. */
const RUNS_PER_OPERATION = Number(process.env.DOCUMENT_FUZZ_RUNS ?? 10);
const seed = Number(process.env.DOCUMENT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
t.comment(`DOCUMENT_FUZZ_SEED=${seed} (set it to replay this run)`);

const document: Json = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...document, $id: "openapi.json" });
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

const env = await startTestEnv({ writeDurationMs: 20 });
t.teardown(() => env.close());

// ---- values that mean something to the service (the simulator's seeded scale sets), beside generated ones ----

const KNOWN: Record<string, unknown[]> = {
  credentials: ["demo"],
  account: ["demo"],
  region: ["eastus"],
  regions: [["eastus"]],
  resourceGroup: ["demo-rg"],
  serverGroupName: ["web-prod-v001", "web-prod-v002", "batch-v001", "web-prod-v404"],
  name: ["web-prod-v001", "web-prod-v002", "web-prod-v404"],
  serverGroup: ["web-prod-v001", "web-prod-v002"],
  target: ["current_asg_dynamic", "ancestor_asg_dynamic", "oldest_asg_dynamic"],
  scope: ["eastus"],
  app: ["web", "batch"],
  application: ["web", "shop"],
  cluster: ["web-prod", "batch"],
  stack: ["prod"],
  operation: ["noSuchOperation", "resizeServerGroup"],
  capacity: [
    { min: 1, max: 5, desired: 2 },
    { min: 0, max: 0, desired: 0 },
  ],
  targetSize: [1, 4],
  instanceIds: [["0"], ["1", "2"]],
  source: [{ account: "demo", region: "eastus", serverGroupName: "web-prod-v002" }],
};

/** Bodies that do something real, per operation; the rest are built from the schema. */
const EXAMPLES: Record<string, () => unknown> = {
  resizeServerGroup: () => demo("web-prod-v001", { capacity: { min: 1, max: 6, desired: 4 } }),
  disableServerGroup: () => demo("web-prod-v002"),
  enableServerGroup: () => demo("web-prod-v002"),
  scaleDown: () => demo("batch-v001", { capacity: { min: 0, max: 0, desired: 0 } }),
  terminateInstances: () => demo("web-prod-v001", { instanceIds: ["0"] }),
  destroyServerGroup: () => demo("web-prod-v404"),
  rollingUpgrade: () => demo("web-prod-v001", { maxSurge: 1 }),
  createServerGroup: () => demoCreate(env.sim.subscriptionId, { capacity: { min: 1, max: 3, desired: 1 } }),
  cloneServerGroup: () => ({
    credentials: "demo",
    region: "eastus",
    application: "web",
    stack: "prod",
    source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v002" },
  }),
  scaleDownCluster: () => ({ credentials: "demo", cluster: "web-prod", regions: ["eastus"] }),
  disableCluster: () => ({ credentials: "demo", cluster: "web-prod", regions: ["eastus"] }),
  clouddriverForceCacheRefresh: () => ({ account: "demo", region: "eastus", serverGroupName: "web-prod-v001" }),
};

// ---- JSON Schema → arbitrary, for the subset the document uses ----

function resolve(schema: Json): Json {
  return typeof schema?.$ref === "string" ? resolve(ajv.getSchema(`openapi.json${schema.$ref}`)!.schema) : schema;
}

function fromSchema(raw: Json, name = "", depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  const known = KNOWN[name];
  const generated = generatedFrom(schema, depth);
  return known ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, generated) : generated;
}

function generatedFrom(schema: Json, depth: number): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return schema.enum.length > 0 ? fc.constantFrom(...schema.enum) : fc.jsonValue({ maxDepth: 1 });
  if (schema.anyOf || schema.oneOf)
    return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Json) => fromSchema(s, "", depth + 1)));
  if (schema.not) return fc.jsonValue({ maxDepth: 1 });
  const types: string[] = [schema.type ?? "object"].flat();
  return fc.oneof(...types.map((type) => ofType(schema, type, depth)));
}

function ofType(schema: Json, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 2000, 2000) });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "string":
      if (schema.pattern) {
        try {
          return fc.stringMatching(new RegExp(schema.pattern, "u"), { size: "xsmall" });
        } catch {
          /* a pattern fast-check cannot generate from: any short string */
        }
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 40) });
    case "array":
      return fc.array(fromSchema(schema.items, "", depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    default: {
      const properties: Record<string, Json> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) record[key] = fromSchema(value, key, depth + 1);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
    }
  }
}

// ---- bodies: valid, Orca-shaped, broken ----

/** Orca's stage context: its own fields beside the description, and null wherever it never set a value. */
function orcaShaped(body: unknown, optional: string[]): fc.Arbitrary<unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fc.constant(body);
  return fc.subarray(optional.filter((k) => !(k in body))).map((nulls) => ({
    ...body,
    cloudProvider: "azure",
    user: "anonymous",
    moniker: { app: "web", cluster: "web-prod" },
    ...Object.fromEntries(nulls.map((k) => [k, null])),
  }));
}

/** One field changed to any JSON value, or removed. */
function broken(body: unknown): fc.Arbitrary<unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fc.jsonValue();
  const keys = Object.keys(body);
  return fc.tuple(fc.constantFrom(...keys), fc.option(fc.jsonValue({ maxDepth: 2 }))).map(([key, value]) => {
    const copy: Record<string, unknown> = { ...body };
    if (value === null) delete copy[key];
    else copy[key] = value;
    return copy;
  });
}

function bodies(operation: Json): fc.Arbitrary<{ body: unknown; contentType: string }> {
  const schema = operation.requestBody.content["application/json"].schema;
  const resolved = resolve(schema);
  const example = EXAMPLES[operation.operationId];
  const isList = resolved.type === "array";
  // The list route: one envelope of another operation's example.
  const valid: fc.Arbitrary<unknown> = isList
    ? fc
        .constantFrom(...Object.keys(EXAMPLES).filter((k) => k in resolve(resolved.items).properties))
        .map((name) => [{ [name]: EXAMPLES[name]() }])
    : example
      ? fc.constant(null).map(() => example())
      : fromSchema(schema);
  const optional = isList
    ? []
    : Object.keys(resolved.properties ?? {}).filter((k) => !(resolved.required ?? []).includes(k));
  const json = fc.oneof(
    { arbitrary: valid, weight: 3 },
    { arbitrary: valid.chain((b) => orcaShaped(b, optional)), weight: 2 },
    { arbitrary: valid.chain(broken), weight: 2 },
    { arbitrary: fromSchema(schema), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
  );
  return fc.oneof(
    { arbitrary: json.map((body) => ({ body, contentType: "application/json" })), weight: 9 },
    { arbitrary: json.map((body) => ({ body, contentType: "text/plain" })), weight: 1 },
  );
}

// ---- parameters ----

/** Task ids the service gave, for /task/{id}: filled as submissions answer. */
const taskIds = ["no-such-task"];

function parameterValue(parameter: Json): fc.Arbitrary<string | undefined> {
  const { name, schema } = parameter;
  if (parameter.in === "path" && name === "id")
    return fc.oneof(
      { arbitrary: fc.nat().map((i) => taskIds[i % taskIds.length]), weight: 4 },
      { arbitrary: fc.constantFrom("t".repeat(128), "t".repeat(129), "t".repeat(300)), weight: 1 },
    );
  if (name === "wait")
    return fc
      .option(fc.oneof({ arbitrary: fc.constantFrom("0", "1"), weight: 4 }, fc.constantFrom("61", "x")), { freq: 2 })
      .map((v) => v ?? undefined);
  // RFC 7240's Prefer (components.parameters.Prefer): strict handling, or not, or a preference the service ignores.
  if (parameter.in === "header" && name === "Prefer")
    return fc
      .option(
        fc.constantFrom("handling=strict", "handling=lenient", "respond-async, handling=strict", "return=minimal"),
      )
      .map((v) => v ?? undefined);
  if (name === "dryRun")
    return fc
      .option(fc.oneof({ arbitrary: fc.constant("true"), weight: 4 }, fc.constantFrom("false", "maybe")), { freq: 2 })
      .map((v) => v ?? undefined);
  const value = fc.oneof(
    { arbitrary: fromSchema(schema, name).map((v) => (typeof v === "string" ? v : JSON.stringify(v))), weight: 4 },
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
    { arbitrary: fc.constant("x".repeat(300)), weight: 1 },
  );
  return parameter.in === "path" || parameter.required ? value : fc.option(value).map((v) => v ?? undefined);
}

interface GeneratedRequest {
  url: string;
  headers: Record<string, string>;
  body?: { body: unknown; contentType: string };
}

/** A parameter as the operation declares it, or the one in components.parameters it refers to. */
function dereferenced(parameter: Json): Json {
  const ref = parameter?.$ref;
  if (typeof ref !== "string") return parameter;
  return ref
    .slice(2)
    .split("/")
    .reduce((node: Json, part: string) => node?.[part], document);
}

function requests(path: string, operation: Json): fc.Arbitrary<GeneratedRequest> {
  const parameters: Json[] = (operation.parameters ?? []).map(dereferenced);
  const values = fc.tuple(...parameters.map(parameterValue));
  const body = operation.requestBody ? bodies(operation) : fc.constant(undefined);
  const unknownQueries = fc.nat(9).map((n) => n === 0);
  // A path segment "." or ".." is never sent: every HTTP client removes dot segments (RFC 3986 5.2.4; the WHATWG URL
  // parser also decodes %2E), so GET /applications/.. reaches / (DOCUMENT_FUZZ_SEED=855819627 found it).
  const sendable = (given: unknown[]) =>
    parameters.every((p, i) => p.in !== "path" || (given[i] !== "." && given[i] !== ".."));
  return fc.tuple(values.filter(sendable), body, unknownQueries).map(([given, sent, unknownQuery]) => {
    let url = path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    parameters.forEach((p, i) => {
      const v = given[i];
      if (v === undefined) return;
      if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(v));
      else if (p.in === "query") query.set(p.name, v);
      else if (p.in === "header") headers[p.name.toLowerCase()] = v;
    });
    if (unknownQuery && parameters.some((p) => p.in === "query")) query.set("surprise", "1");
    const search = query.toString();
    return { url: search ? `${url}?${search}` : url, headers, ...(sent ? { body: sent } : {}) };
  });
}

// ---- the check ----

async function send(method: string, generated: GeneratedRequest) {
  const res = await request(`${env.baseUrl}${generated.url}`, {
    method: method.toUpperCase() as "GET",
    headers: { ...generated.headers, ...(generated.body ? { "content-type": generated.body.contentType } : {}) },
    body: generated.body ? JSON.stringify(generated.body.body) : undefined,
  });
  const text = await res.body.text();
  const type = String(res.headers["content-type"] ?? "");
  return { status: res.statusCode, type, text };
}

const operations = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
  HTTP_METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method] })),
);

t.test("every operation answers as the document says, for requests made from the document", async (t) => {
  let sent = 0;
  for (const [i, { path, method, operation }] of operations.entries()) {
    const where = `${method.toUpperCase()} ${path}`;
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(requests(path, operation), async (generated) => {
        const answer = await send(method, generated);
        sent++;
        statuses.add(answer.status);
        const prefer = generated.headers.prefer ? ` (Prefer: ${generated.headers.prefer})` : "";
        const said = `${method.toUpperCase()} ${generated.url}${prefer} ${JSON.stringify(generated.body ?? null).slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 400)}`;
        if (answer.status >= 500 && answer.status !== 503) throw new Error(`a 5xx other than 503: ${said}`);
        const declared = operation.responses[String(answer.status)];
        if (!declared) throw new Error(`status ${answer.status} is not declared by ${operation.operationId}: ${said}`);
        const media = answer.type.split(";")[0].trim();
        const content = declared.content?.[media];
        if (!content) throw new Error(`${media} is not declared for ${answer.status}: ${said}`);
        if (media === "application/json") {
          const ref = `openapi.json#/${pointer("paths", path, method, "responses", String(answer.status), "content", media, "schema")}`;
          const validate = ajv.getSchema(ref)!;
          if (!validate(JSON.parse(answer.text)))
            throw new Error(`the answer is not what the document says: ${ajv.errorsText(validate.errors)}: ${said}`);
        }
        if ((answer.status === 202 || answer.status === 200) && media === "application/json") {
          const id = (JSON.parse(answer.text) as { kind?: string; id?: string }).id;
          if (id && !taskIds.includes(id) && /^\/(azure\/ops|task)/.test(path)) taskIds.push(id);
        }
      }),
      { seed: seed + i, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
    );
    t.pass(`${where}: ${RUNS_PER_OPERATION} requests, answered ${[...statuses].sort().join(", ")}`);
  }
  t.ok(sent >= operations.length * RUNS_PER_OPERATION, `${sent} requests, every operation`);
});
