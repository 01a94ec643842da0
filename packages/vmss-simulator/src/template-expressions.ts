// ARM template expressions (`"[concat(resourceId('Microsoft.Network/loadBalancers', 'lb'), '/probes/p')]"`), as far as
// the templates the Azure CLI generates use them: parameters(), variables(), resourceId(), concat(), reference(),
// providers(), resourceGroup(), subscription(), with property access (`.apiVersions[0]`). Any other function is refused
// by name before anything is deployed (400 InvalidTemplate), so a template never half-runs on an expression the
// simulator cannot evaluate. A string that starts with `[[` is the literal text after the first `[`, as in ARM.
import { ArmError } from "./arm-errors.ts";
import { isObject } from "./json.ts";

export type Expr =
  | { kind: "string"; value: string }
  | { kind: "number"; value: number }
  | { kind: "call"; name: string; args: Expr[] }
  | { kind: "property"; target: Expr; name: string }
  | { kind: "index"; target: Expr; index: Expr };

/** The functions evaluated here; the rest of ARM's template functions are refused by name. */
export const SUPPORTED_FUNCTIONS = [
  "parameters",
  "variables",
  "resourceId",
  "concat",
  "reference",
  "providers",
  "resourceGroup",
  "subscription",
] as const;

export function invalidTemplate(message: string): ArmError {
  return new ArmError(400, "InvalidTemplate", `Deployment template validation failed: '${message}'.`);
}

/** Whether a template string is an expression (`[...]`, not `[[...`). */
export function isExpression(text: string): boolean {
  return text.startsWith("[") && text.endsWith("]") && !text.startsWith("[[");
}

/** A recursive-descent reader of one expression's text. */
class ExpressionReader {
  pos = 0;
  readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  fail(what: string): never {
    throw invalidTemplate(
      `The template language expression '${this.src}' is not valid: ${what} at position ${this.pos}`,
    );
  }

  ws(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }

  expr(): Expr {
    this.ws();
    let node = this.primary();
    for (;;) {
      this.ws();
      if (this.src[this.pos] === ".") {
        this.pos++;
        this.ws();
        const m = /^[A-Za-z_$][\w$]*/.exec(this.src.slice(this.pos)) ?? this.fail("a property name was expected");
        this.pos += m[0].length;
        node = { kind: "property", target: node, name: m[0] };
      } else if (this.src[this.pos] === "[") {
        this.pos++;
        const index = this.expr();
        this.ws();
        if (this.src[this.pos] !== "]") this.fail("']' was expected");
        this.pos++;
        node = { kind: "index", target: node, index };
      } else {
        return node;
      }
    }
  }

  primary(): Expr {
    if (this.src[this.pos] === "'") return this.string();
    const num = /^-?\d+/.exec(this.src.slice(this.pos));
    if (num) {
      this.pos += num[0].length;
      return { kind: "number", value: Number(num[0]) };
    }
    const name =
      /^[A-Za-z_][\w.]*/.exec(this.src.slice(this.pos)) ?? this.fail("a function, a string or a number was expected");
    this.pos += name[0].length;
    this.ws();
    if (this.src[this.pos] !== "(") this.fail(`'(' was expected after '${name[0]}'`);
    this.pos++;
    return { kind: "call", name: name[0], args: this.args() };
  }

  /** `'text'`, a quote doubled inside. */
  string(): Expr {
    let value = "";
    this.pos++;
    for (;;) {
      if (this.pos >= this.src.length) this.fail("the string is not closed");
      if (this.src[this.pos] === "'") {
        if (this.src[this.pos + 1] === "'") {
          value += "'";
          this.pos += 2;
          continue;
        }
        this.pos++;
        return { kind: "string", value };
      }
      value += this.src[this.pos++];
    }
  }

  /** A call's arguments, after its `(`. */
  args(): Expr[] {
    const args: Expr[] = [];
    this.ws();
    if (this.src[this.pos] === ")") {
      this.pos++;
      return args;
    }
    for (;;) {
      args.push(this.expr());
      this.ws();
      if (this.src[this.pos] === ",") {
        this.pos++;
        continue;
      }
      if (this.src[this.pos] === ")") {
        this.pos++;
        return args;
      }
      this.fail("',' or ')' was expected");
    }
  }
}

/** Parses the text of an expression string (with its brackets); throws InvalidTemplate on a syntax error. */
export function parseExpression(text: string): Expr {
  const reader = new ExpressionReader(text.slice(1, -1));
  const out = reader.expr();
  reader.ws();
  if (reader.pos !== reader.src.length) reader.fail("the expression has text after its end");
  return out;
}

/** The functions an expression calls, by name as written. */
export function functionsOf(e: Expr): string[] {
  switch (e.kind) {
    case "call":
      return [e.name, ...e.args.flatMap(functionsOf)];
    case "property":
      return functionsOf(e.target);
    case "index":
      return [...functionsOf(e.target), ...functionsOf(e.index)];
    case "string":
    case "number":
      return [];
  }
}

/** Every expression string in a template value (keys are not expressions here). */
export function expressionsIn(value: unknown): string[] {
  if (typeof value === "string") return isExpression(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(expressionsIn);
  if (isObject(value)) return Object.values(value).flatMap(expressionsIn);
  return [];
}

/** Throws InvalidTemplate naming the first function the simulator does not evaluate. */
export function checkFunctions(value: unknown): void {
  for (const text of expressionsIn(value)) {
    for (const name of functionsOf(parseExpression(text))) {
      if (!SUPPORTED_FUNCTIONS.some((f) => f.toLowerCase() === name.toLowerCase())) {
        throw invalidTemplate(
          `The template function '${name}' is not supported by the simulator's deployments (it evaluates ${SUPPORTED_FUNCTIONS.join(", ")})`,
        );
      }
    }
  }
}

export interface EvalScope {
  subscriptionId: string;
  resourceGroup: string;
  location: string;
  parameters: Record<string, unknown>;
  variables: Record<string, unknown>;
  /** reference(id, apiVersion?, 'Full'?): the resource's properties (or the whole resource) as deployed so far. */
  reference(id: string, apiVersion: string | undefined, full: boolean): unknown;
  /** providers(namespace, type): the resource type's registration (apiVersions newest first). */
  providers(namespace: string, type: string): unknown;
}

/** `/subscriptions/…/resourceGroups/…/providers/{ns}/{type}/{name}[/{child}/{name}…]`, as resourceId() builds it. */
export function buildResourceId(subscriptionId: string, resourceGroup: string, type: string, names: string[]): string {
  const [namespace, ...types] = type.split("/");
  if (!namespace || types.length === 0 || types.length !== names.length) {
    throw invalidTemplate(
      `Unable to evaluate template language function 'resourceId': the type '${type}' requires ${types.length} resource name argument(s)`,
    );
  }
  const path = types.map((t, i) => `${t}/${names[i]}`).join("/");
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/${namespace}/${path}`;
}

function str(v: unknown, fn: string): string {
  if (typeof v !== "string")
    throw invalidTemplate(`The template function '${fn}' expects string arguments, got ${JSON.stringify(v)}`);
  return v;
}

function call(name: string, args: unknown[], scope: EvalScope): unknown {
  switch (name.toLowerCase()) {
    case "parameters": {
      const key = str(args[0], name);
      const found = Object.keys(scope.parameters).find((k) => k.toLowerCase() === key.toLowerCase());
      if (found === undefined) throw invalidTemplate(`The template parameter '${key}' is not found`);
      return scope.parameters[found];
    }
    case "variables": {
      const key = str(args[0], name);
      const found = Object.keys(scope.variables).find((k) => k.toLowerCase() === key.toLowerCase());
      if (found === undefined) throw invalidTemplate(`The template variable '${key}' is not found`);
      return scope.variables[found];
    }
    case "concat":
      if (args.every(Array.isArray)) return args.flat();
      return args.map((a) => (typeof a === "string" || typeof a === "number" ? String(a) : JSON.stringify(a))).join("");
    case "resourceid": {
      const strings = args.map((a) => str(a, name));
      const typeAt = strings.findIndex((s) => s.includes("/"));
      if (typeAt < 0 || typeAt > 2)
        throw invalidTemplate("Unable to evaluate template language function 'resourceId': no resource type was given");
      const before = strings.slice(0, typeAt);
      const subscriptionId = before.length === 2 ? before[0] : scope.subscriptionId;
      const resourceGroup = before.length >= 1 ? before[before.length - 1] : scope.resourceGroup;
      return buildResourceId(subscriptionId, resourceGroup, strings[typeAt], strings.slice(typeAt + 1));
    }
    case "reference": {
      const target = str(args[0], name);
      const apiVersion = args[1] === undefined ? undefined : str(args[1], name);
      const full = typeof args[2] === "string" && args[2].toLowerCase() === "full";
      return scope.reference(target, apiVersion, full);
    }
    case "providers":
      return scope.providers(str(args[0], name), str(args[1], name));
    case "resourcegroup":
      return {
        id: `/subscriptions/${scope.subscriptionId}/resourceGroups/${scope.resourceGroup}`,
        name: scope.resourceGroup,
        type: "Microsoft.Resources/resourceGroups",
        location: scope.location,
        properties: { provisioningState: "Succeeded" },
      };
    case "subscription":
      return {
        id: `/subscriptions/${scope.subscriptionId}`,
        subscriptionId: scope.subscriptionId,
        displayName: "ARM simulator",
      };
    default:
      throw invalidTemplate(`The template function '${name}' is not supported by the simulator's deployments`);
  }
}

export function evaluate(e: Expr, scope: EvalScope): unknown {
  switch (e.kind) {
    case "string":
    case "number":
      return e.value;
    case "call":
      return call(
        e.name,
        e.args.map((a) => evaluate(a, scope)),
        scope,
      );
    case "property": {
      const target = evaluate(e.target, scope);
      if (!isObject(target)) throw invalidTemplate(`The language expression property '${e.name}' can't be evaluated`);
      const key = Object.keys(target).find((k) => k.toLowerCase() === e.name.toLowerCase());
      if (key === undefined) throw invalidTemplate(`The language expression property '${e.name}' doesn't exist`);
      return target[key];
    }
    case "index": {
      const target = evaluate(e.target, scope);
      const index = evaluate(e.index, scope);
      if (Array.isArray(target) && typeof index === "number") {
        if (index < 0 || index >= target.length)
          throw invalidTemplate(`The language expression index '${index}' is out of bounds`);
        return target[index] as unknown;
      }
      if (isObject(target) && typeof index === "string") return target[index];
      throw invalidTemplate("The language expression index can't be evaluated");
    }
  }
}

/** A template value with every expression string replaced by its value (`[[` strings lose their first `[`). */
export function evaluateDeep(value: unknown, scope: EvalScope): unknown {
  if (typeof value === "string") {
    if (value.startsWith("[[")) return value.slice(1);
    return isExpression(value) ? evaluate(parseExpression(value), scope) : value;
  }
  if (Array.isArray(value)) return value.map((v) => evaluateDeep(v, scope));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluateDeep(v, scope)]));
  return value;
}
