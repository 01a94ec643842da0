// Checks ARM requests and answers against Compute's REST specification of their api-version, as vendored in
// test/fixtures/arm-spec (see its README): the operation the method and path name must exist, a body must use only
// the fields its definition declares (unless the definition allows additional properties), each with the declared
// type, and carry the required ones; an answer's status must be one the operation declares (errors: ARM's CloudError).
import { readdirSync, readFileSync } from "node:fs";

export interface SpecOperation {
  /** A package's operations span api-versions (resource SKUs, disks, galleries each have their own). */
  apiVersion: string;
  group: string;
  name: string;
  method: string;
  path: string;
  request?: string;
  responses: Record<string, string | null>;
}

interface MapperType {
  name: string;
  className?: string;
  modelProperties?: Record<string, Mapper>;
  element?: Mapper;
  value?: Mapper;
  additionalProperties?: unknown;
  uberParent?: string;
  polymorphicDiscriminator?: { serializedName: string; clientName: string };
}

interface Mapper {
  serializedName?: string;
  required?: boolean;
  readOnly?: boolean;
  nullable?: boolean;
  type: MapperType;
}

export interface ArmSpec {
  apiVersion: string;
  source: { package: string; note: string };
  operations: SpecOperation[];
  definitions: Record<string, Mapper>;
}

const DIR = new URL("../fixtures/arm-spec/", import.meta.url);

/** The api-versions whose specification is vendored. */
export function vendoredApiVersions(): string[] {
  return readdirSync(DIR)
    .filter((f) => /^\d{4}-\d{2}-\d{2}(-preview)?\.json$/.test(f))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

const cache = new Map<string, ArmSpec>();
export function loadSpec(apiVersion: string): ArmSpec {
  let spec = cache.get(apiVersion);
  if (!spec) {
    spec = JSON.parse(readFileSync(new URL(`${apiVersion}.json`, DIR), "utf8")) as ArmSpec;
    cache.set(apiVersion, spec);
  }
  return spec;
}

function templateRegExp(path: string): RegExp {
  const parts = path.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[^/]+")}/?$`, "i");
}

const regexps = new Map<string, RegExp>();
/** The vendored specification that has operations of this api-version. */
export function specFor(apiVersion: string): ArmSpec | undefined {
  const own = vendoredApiVersions().find((v) => v === apiVersion);
  if (own) return loadSpec(own);
  return vendoredApiVersions()
    .map(loadSpec)
    .find((spec) => spec.operations.some((op) => op.apiVersion === apiVersion));
}

/**
 * The operation of the specification a request is (of `apiVersion` when given), or undefined. Paths compare
 * case-insensitively, as ARM's do.
 */
export function findOperation(
  spec: ArmSpec,
  method: string,
  pathname: string,
  apiVersion?: string,
): SpecOperation | undefined {
  const path = decodeURIComponent(pathname);
  return spec.operations.find((op) => {
    if (op.method !== method.toUpperCase() || op.path.startsWith("{")) return false;
    if (apiVersion && op.apiVersion !== apiVersion) return false;
    let re = regexps.get(op.path);
    if (!re) regexps.set(op.path, (re = templateRegExp(op.path)));
    return re.test(path);
  });
}

/** A route pattern of the simulator (`:name` segments) matched by an operation of the specification. */
export function findOperationForPattern(spec: ArmSpec, method: string, pattern: string): SpecOperation | undefined {
  return findOperation(spec, method, pattern.replace(/:(\w+)/g, "x-$1"));
}

/** serializedName `properties.a` is the wire path properties → a; `odata\\.type` is one name. */
function wirePath(serializedName: string): string[] {
  return serializedName.split(/(?<!\\)\./).map((s) => s.replace(/\\\./g, "."));
}

type Node = { kind: "leaf"; mapper: Mapper } | { kind: "object"; children: Map<string, Node>; required: boolean };

function propertyTree(mapper: Mapper, spec: ArmSpec): Map<string, Node> {
  const root = new Map<string, Node>();
  for (const prop of Object.values(modelProperties(mapper, spec))) {
    if (!prop.serializedName) continue;
    const path = wirePath(prop.serializedName);
    let level = root;
    for (const segment of path.slice(0, -1)) {
      let next = level.get(segment);
      if (!next || next.kind !== "object") {
        next = { kind: "object", children: new Map(), required: false };
        level.set(segment, next);
      }
      if (prop.required) next.required = true;
      level = next.children;
    }
    level.set(path[path.length - 1], { kind: "leaf", mapper: prop });
  }
  return root;
}

function modelProperties(mapper: Mapper, spec: ArmSpec): Record<string, Mapper> {
  if (mapper.type.modelProperties) return mapper.type.modelProperties;
  const named = mapper.type.className ? spec.definitions[mapper.type.className] : undefined;
  return named?.type.modelProperties ?? {};
}

function resolve(mapper: Mapper, spec: ArmSpec): Mapper {
  if (mapper.type.name === "Composite" && !mapper.type.modelProperties && mapper.type.className) {
    const named = spec.definitions[mapper.type.className];
    if (!named) throw new Error(`definition ${mapper.type.className} is not vendored`);
    return { ...mapper, type: named.type };
  }
  return mapper;
}

/** A polymorphic definition's subtype named by the body's discriminator. */
function subtype(mapper: Mapper, value: Record<string, unknown>, spec: ArmSpec): Mapper {
  const discriminator = mapper.type.polymorphicDiscriminator?.serializedName;
  if (!discriminator || typeof value[discriminator] !== "string") return mapper;
  const parent = mapper.type.className;
  const child = Object.values(spec.definitions).find(
    (d) => d.type.uberParent === parent && d.serializedName === value[discriminator],
  );
  return child ?? mapper;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value} (${JSON.stringify(value)?.slice(0, 60)})`;
}

/** The errors of a body against a definition; `where` is the body's JSON path. */
export function checkBody(spec: ArmSpec, definition: string, value: unknown, where: string): string[] {
  const mapper = spec.definitions[definition];
  if (!mapper) return [`${where}: definition ${definition} is not vendored`];
  const errors: string[] = [];
  checkValue(spec, mapper, value, where, errors);
  return errors;
}

function checkValue(spec: ArmSpec, given: Mapper, value: unknown, where: string, errors: string[]): void {
  if (value === null || value === undefined) {
    if (value === null && !given.nullable && given.type.name !== "Object") errors.push(`${where}: null is not allowed`);
    return;
  }
  const mapper = resolve(given, spec);
  const type = mapper.type.name;
  const wrong = (what: string): void => {
    errors.push(`${where}: expected ${what}, got ${describe(value)}`);
  };
  switch (type) {
    case "String":
    case "Enum":
    case "Uuid":
    case "TimeSpan":
    case "ByteArray":
    case "Base64Url":
      if (typeof value !== "string") wrong("a string");
      return;
    case "DateTime":
    case "DateTimeRfc1123":
    case "Date":
      if (typeof value !== "string" || Number.isNaN(Date.parse(value))) wrong("a date-time string");
      return;
    case "UnixTime":
    case "Number":
      if (typeof value !== "number") wrong("a number");
      return;
    case "Boolean":
      if (typeof value !== "boolean") wrong("a boolean");
      return;
    case "Object":
      return;
    case "Sequence":
      if (!Array.isArray(value)) return wrong("an array");
      value.forEach(
        (item, i) => mapper.type.element && checkValue(spec, mapper.type.element, item, `${where}[${i}]`, errors),
      );
      return;
    case "Dictionary":
      if (typeof value !== "object" || Array.isArray(value)) return wrong("an object");
      for (const [k, v] of Object.entries(value))
        if (mapper.type.value) checkValue(spec, mapper.type.value, v, `${where}.${k}`, errors);
      return;
    case "Composite": {
      if (typeof value !== "object" || Array.isArray(value)) return wrong("an object");
      const actual = subtype(mapper, value as Record<string, unknown>, spec);
      checkObject(
        spec,
        propertyTree(actual, spec),
        !!actual.type.additionalProperties,
        value as Record<string, unknown>,
        where,
        errors,
      );
      return;
    }
    default:
      errors.push(`${where}: the check does not know type ${type}`);
  }
}

function checkObject(
  spec: ArmSpec,
  tree: Map<string, Node>,
  open: boolean,
  value: Record<string, unknown>,
  where: string,
  errors: string[],
): void {
  for (const [key, v] of Object.entries(value)) {
    const node = tree.get(key);
    if (!node) {
      if (!open) errors.push(`${where}.${key}: not defined by the specification`);
      continue;
    }
    if (node.kind === "leaf") checkValue(spec, node.mapper, v, `${where}.${key}`, errors);
    else if (v !== null && (typeof v !== "object" || Array.isArray(v)))
      errors.push(`${where}.${key}: expected an object, got ${describe(v)}`);
    else if (v) checkObject(spec, node.children, false, v as Record<string, unknown>, `${where}.${key}`, errors);
  }
  for (const [key, node] of tree) {
    const required = node.kind === "leaf" ? node.mapper.required && !node.mapper.readOnly : node.required;
    if (required && value[key] === undefined) errors.push(`${where}.${key}: required by the specification, missing`);
  }
}

export interface Exchange {
  method: string;
  /** Pathname as sent. */
  path: string;
  apiVersion: string;
  requestBody?: unknown;
  status: number;
  responseBody?: unknown;
}

/** The errors of one request and its answer against the specification of its api-version. */
export function checkExchange(spec: ArmSpec, e: Exchange, apiVersion?: string): string[] {
  const label = `${e.method} ${e.path}?api-version=${e.apiVersion} → ${e.status}`;
  const op = findOperation(spec, e.method, e.path, apiVersion);
  if (!op) return [`${label}: no operation of the ${apiVersion ?? spec.apiVersion} specification`];
  const errors: string[] = [];
  if (op.request && e.requestBody !== undefined) errors.push(...checkBody(spec, op.request, e.requestBody, "request"));
  if (e.status >= 400) {
    const name = op.responses[String(e.status)] ?? op.responses.default;
    if (name && e.responseBody !== undefined) errors.push(...checkBody(spec, name, e.responseBody, "answer"));
  } else if (!(String(e.status) in op.responses)) {
    errors.push(
      `status ${e.status} is not an answer of ${op.group}.${op.name} (${Object.keys(op.responses).join(", ")})`,
    );
  } else {
    const name = op.responses[String(e.status)];
    if (name && e.responseBody !== undefined) errors.push(...checkBody(spec, name, e.responseBody, "answer"));
    if (!name && e.responseBody !== undefined) errors.push(`answer: ${op.group}.${op.name} ${e.status} has no body`);
  }
  return errors.map((err) => `${label} (${op.group}.${op.name}): ${err}`);
}
