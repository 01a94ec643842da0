// The client package's types (src/client/openapi.ts) say what the API does. No `unknown` in the body of any answer,
// but where the body is free-form by nature: each such place is named below, and its schema says "free-form" in its
// description; a new `unknown` in an answer fails here, so that it is typed in its schema or named as free-form. And
// a field the service refuses whatever its value (`not: {}` in the document) is typed `never`: setting it fails tsc.
import t from "tap";
import { readFile } from "node:fs/promises";
import ts from "typescript";
import { CLIENT_TYPES_PATH } from "../scripts/write-client.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import type { Json } from "../testkit/json.ts";

/**
 * The free-form places in answers, by where they end in a body ("…: path"), whatever the operation, each with the
 * component and property whose description says it is free-form: what a dry run shows of an ARM request's body and
 * of a property's value before and after, which are Azure's resources as they are.
 */
const FREE_FORM: Record<string, { component: string; property: string }> = {
  "write.requests[].body": { component: "ArmRequest", property: "body" },
  "write.changes[].delta[].before": { component: "WhatIfPropertyChange", property: "before" },
  "write.changes[].delta[].after": { component: "WhatIfPropertyChange", property: "after" },
};
const freeFormPlace = (found: string) => Object.keys(FREE_FORM).find((end) => found.endsWith(`.${end}`));

const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
const program = ts.createProgram([CLIENT_TYPES_PATH], { strict: true, noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(CLIENT_TYPES_PATH)!)!);

function declared(name: string): ts.Type {
  const symbol = exported.find((s) => s.name === name);
  if (!symbol) throw new Error(`src/client/openapi.ts exports no ${name}`);
  return checker.getDeclaredTypeOfSymbol(symbol);
}

function prop(type: ts.Type, name: string): ts.Type | undefined {
  const symbol = checker.getPropertyOfType(type, name);
  return symbol && checker.getTypeOfSymbol(symbol);
}

/** Every path in `type` whose type is unknown or any: properties, list items, index signatures, union members. */
function unknownsIn(type: ts.Type, path: string, seen = new Set<ts.Type>()): string[] {
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return [path || "(the body)"];
  if (seen.has(type)) return [];
  seen.add(type);
  if (type.isUnionOrIntersection()) return type.types.flatMap((m) => unknownsIn(m, path, seen));
  if (checker.isArrayType(type))
    return unknownsIn(checker.getTypeArguments(type as ts.TypeReference)[0], `${path}[]`, seen);
  if (!(type.flags & ts.TypeFlags.Object)) return [];
  const found = checker
    .getPropertiesOfType(type)
    .flatMap((p) => unknownsIn(checker.getTypeOfSymbol(p), path ? `${path}.${p.name}` : p.name, seen));
  for (const info of checker.getIndexInfosOfType(type)) found.push(...unknownsIn(info.type, `${path}[*]`, seen));
  return found;
}

/** "operationId status media-type: path" for each unknown in the body of an answer or (`part`) a request. */
function unknownsOf(part: "responses" | "requestBody"): string[] {
  const found: string[] = [];
  const operations = declared("operations");
  for (const operation of checker.getPropertiesOfType(operations)) {
    const at = prop(checker.getTypeOfSymbol(operation), part);
    if (!at) continue;
    const bodies =
      part === "responses"
        ? checker.getPropertiesOfType(at).map((s) => ({ status: s.name, type: checker.getTypeOfSymbol(s) }))
        : [{ status: "request", type: checker.getNonNullableType(at) }];
    for (const { status, type } of bodies) {
      const content = prop(type, "content");
      if (!content) continue;
      for (const media of checker.getPropertiesOfType(content))
        for (const path of unknownsIn(checker.getTypeOfSymbol(media), ""))
          found.push(`${operation.name} ${status} ${media.name}: ${path}`);
    }
  }
  return found;
}

void t.test("the scan finds unknown where there is some: in the open request bodies", (t) => {
  const inRequests = unknownsOf("requestBody");
  t.ok(
    inRequests.some((u) => u.startsWith("resizeServerGroup request application/json: [*]")),
    `a description is open (Orca's extra fields), so its type has an index signature of unknown: ${inRequests.slice(0, 3).join("; ")}`,
  );
  t.end();
});

void t.test("no answer's body is typed unknown anywhere, but where it is free-form and says so", (t) => {
  const found = unknownsOf("responses");
  t.same(
    found.filter((u) => freeFormPlace(u) === undefined),
    [],
    "every answer typed to its leaves: type the schema, or name the place in FREE_FORM if it is free-form by nature",
  );
  t.same(
    Object.keys(FREE_FORM).filter((end) => !found.some((u) => u.endsWith(`.${end}`))),
    [],
    "no stale entry in FREE_FORM",
  );
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  for (const [place, { component, property }] of Object.entries(FREE_FORM))
    t.match(
      schemas[component]?.properties?.[property]?.description,
      /free-form/i,
      `${place}: ${component}.${property}'s description says it is free-form`,
    );
  t.end();
});

/** Every property schema in the components that refuses any value (`not: {}`), as a path from its component. */
function refusedFields(): { component: string; path: string[] }[] {
  const out: { component: string; path: string[] }[] = [];
  const walk = (node: Json, component: string, path: string[]) => {
    if (!node || typeof node !== "object") return;
    for (const [name, property] of Object.entries<Json>(node.properties ?? {})) {
      const here = [...path, name];
      if (property?.not && typeof property.not === "object" && Object.keys(property.not).length === 0)
        out.push({ component, path: here });
      walk(property, component, here);
      for (const branch of property?.anyOf ?? []) walk(branch, component, here);
    }
  };
  for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {})) walk(schema, name, []);
  return out;
}

void t.test("a field refused whatever its value is typed never", (t) => {
  const refused = refusedFields();
  t.ok(
    refused.some((r) => r.path.join(".") === "osConfig.adminPassword"),
    "osConfig.adminPassword is refused (a password only by reference)",
  );
  const schemas = prop(declared("components"), "schemas")!;
  for (const { component, path } of refused) {
    let type: ts.Type | undefined = prop(schemas, component);
    for (const name of path) type = type && prop(checker.getNonNullableType(type), name);
    const shown = type ? checker.typeToString(type) : "(absent)";
    t.ok(
      type && (type.flags & ts.TypeFlags.Never || shown === "undefined"),
      `${component}.${path.join(".")} is never (optional: never | undefined), got ${shown}`,
    );
  }
  t.end();
});
