// The OpenAPI document: how it is generated from the route schemas (scripts/write-openapi.ts, with @fastify/swagger
// in the app that buildApp makes for it) and where the checked-in copy lives, which the service serves.
import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";

export const API_VERSION = "0.1.0";

/** The name of the HTTP bearer security scheme in the document (components.securitySchemes). */
export const BEARER_SCHEME = "bearer";

/** openapi/openapi.json, checked in and kept in sync with the routes by test/openapi.test.ts. */
export const OPENAPI_FILE = new URL("../../openapi/openapi.json", import.meta.url);

export const openApiOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: "3.1.0",
    info: {
      title: "vmss-ops",
      version: API_VERSION,
      description:
        "Deployment-stage operations on Azure VM Scale Sets, compatible with Spinnaker Clouddriver's task API. " +
        "Submit an operation, get a task, poll GET /task/{id} until status.completed.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [
      {
        url: "{scheme}://{host}",
        description: "where the service listens",
        variables: {
          scheme: { enum: ["http", "https"], default: "http", description: "https when a proxy terminates TLS" },
          host: { default: "localhost:7002", description: "host and port (PORT, 7002 by default)" },
        },
      },
    ],
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "A principal's token (AUTH_TOKENS_FILE, AUTH_TOKENS). Without access control configured, every route is open and the token is not needed.",
        },
      },
    },
    tags: [
      { name: "operations", description: "Start operations; each answers 202 with a task" },
      { name: "tasks", description: "Poll tasks" },
      { name: "audit", description: "Who changed what: the audit trail, read-only" },
      { name: "serverGroups", description: "Read scale sets as Azure reports them" },
      {
        name: "clouddriver",
        description:
          "The Clouddriver reads Orca makes for Azure server groups, served through a short-lived read cache",
      },
      { name: "service", description: "Health and documentation" },
    ],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
  },
};

type JsonSchema = Record<string, unknown>;
const COMPONENT_REF = "#/components/schemas/";

/** The components a schema refers to, by name. */
function refsIn(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) refsIn(v, out);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith(COMPONENT_REF)) out.add(v.slice(COMPONENT_REF.length));
      else refsIn(v, out);
    }
  }
  return out;
}

/** `names` and every component they refer to, transitively. */
function closure(names: Iterable<string>, components: Record<string, JsonSchema>): Set<string> {
  const seen = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name) || !components[name]) continue;
    seen.add(name);
    pending.push(...refsIn(components[name]));
  }
  return seen;
}

/** The schema that also accepts null. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string" && schema.const === undefined && !schema.enum)
    return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: "null" }] };
  if (schema.not !== undefined) return schema; // refused whatever its value: a type of never stays never
  const { description, ...rest } = schema;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: "null" }] };
}

/** Every optional property of every object in `schema` (nested ones too, in lists as well) made nullable. */
function optionalFieldsNullable(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== "object") return node;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === "properties" ? v : walk(v);
    if (out.properties && typeof out.properties === "object") {
      const required = new Set((out.required as string[] | undefined) ?? []);
      out.properties = Object.fromEntries(
        Object.entries(out.properties as Record<string, JsonSchema>).map(([name, property]) => [
          name,
          required.has(name) ? walk(property) : orNull(walk(property) as JsonSchema),
        ]),
      );
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/**
 * The request bodies whose nulls mean absent (withoutNulls drops them before validation, as Orca sends its stage
 * context): in the document their optional fields accept null, so that a generated client takes Orca's bodies as
 * they are. Components an answer also uses are left as they are: answers never carry null.
 */
export function documentNullsAsAbsent(document: Record<string, unknown>, bodies: string[]): Record<string, unknown> {
  const components = (document.components as { schemas?: Record<string, JsonSchema> } | undefined)?.schemas ?? {};
  const answered = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, { responses?: unknown }>>))
    for (const operation of Object.values(item)) for (const name of refsIn(operation?.responses)) answered.add(name);
  const inAnswers = closure(answered, components);
  for (const name of closure(bodies, components))
    if (!inAnswers.has(name)) components[name] = optionalFieldsNullable(components[name]);
  return document;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"];

/** `Prefer`, as the operations that read a description take it (components.parameters). */
export const PREFER_PARAMETER = "Prefer";
/**
 * `Preference-Applied`, as their answers carry it: written out in each answer, not a $ref, since openapi-typescript
 * types a $ref header as always there, and this one is there only when strict handling was asked for.
 */
const PREFERENCE_APPLIED = {
  description: "RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it)",
  required: false,
  schema: { type: "string", enum: ["handling=strict"] },
};

/**
 * The operations whose body is an operation's description (one, or Clouddriver's list of them) are those that name
 * the fields they do not read (src/api/ignored-fields.ts), and so those that honour `Prefer: handling=strict` (RFC
 * 7240): each takes the Prefer header, declared once in components.parameters, and each of its answers may carry
 * Preference-Applied.
 */
export function documentStrictHandling(document: Record<string, unknown>, bodies: string[]): Record<string, unknown> {
  const components = (document.components ??= {}) as Record<string, Record<string, unknown> | undefined>;
  const schemas = (components.schemas ?? {}) as Record<string, JsonSchema>;
  const descriptions = new Set(bodies);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Record<string, unknown> | undefined>>;
  let used = false;
  for (const item of Object.values(paths))
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.requestBody) continue;
      const takes = closure(refsIn(operation.requestBody), schemas);
      if (![...takes].some((name) => descriptions.has(name))) continue;
      used = true;
      operation.parameters = [
        ...((operation.parameters as unknown[] | undefined) ?? []),
        { $ref: `#/components/parameters/${PREFER_PARAMETER}` },
      ];
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Record<string, unknown>>))
        response.headers = {
          ...(response.headers as Record<string, unknown> | undefined),
          "Preference-Applied": PREFERENCE_APPLIED,
        };
    }
  if (!used) return document;
  components.parameters = {
    ...components.parameters,
    [PREFER_PARAMETER]: {
      name: "Prefer",
      in: "header",
      required: false,
      description:
        "RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.",
      schema: { type: "string", maxLength: 1024 },
      example: "handling=strict",
    },
  };
  return document;
}
