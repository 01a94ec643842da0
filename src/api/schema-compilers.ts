// Route schemas compiled on a route's first use, not at start-up. fastify compiles every route's validators (Ajv) and
// response serializers (fast-json-stringify) when the app becomes ready, HEAD twins included; that was most of the
// service's start-up, for routes most replicas never serve. These factories hand fastify stand-ins that compile with
// fastify's own compilers (same options, same shared schemas) the first time they run; compileAll() compiles what is
// still pending, so a test can still show that every schema compiles.
import { createRequire } from "node:module";
import type { FastifyServerOptions } from "fastify";

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>;
type BuildValidator = NonNullable<CompilersFactory["buildValidator"]>;
type BuildSerializer = NonNullable<CompilersFactory["buildSerializer"]>;
type ExternalSchemas = Record<string, unknown>;
interface RouteSchema {
  schema: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
  httpStatus?: string;
}
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (data: unknown) => string;

// fastify's default compilers, loaded with the first compile: they bring Ajv and fast-json-stringify with them.
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));
let defaults: { buildValidator: BuildValidator; buildSerializer: BuildSerializer } | undefined;
function defaultCompilers() {
  defaults ??= {
    buildValidator: (requireFromFastify("@fastify/ajv-compiler") as () => BuildValidator)(),
    buildSerializer: (requireFromFastify("@fastify/fast-json-stringify-compiler") as () => BuildSerializer)(),
  };
  return defaults;
}

/** Where a compile failed, as fastify would have said it at start-up. */
function compileError(route: RouteSchema, err: unknown): Error {
  const part = route.httpPart ?? `response ${route.httpStatus}`;
  return new Error(`cannot compile the ${part} schema of ${route.method} ${route.url}: ${(err as Error).message}`, {
    cause: err,
  });
}

export class LazySchemaCompilers {
  /** Each schema not compiled yet: how to compile it, by the route it belongs to. */
  readonly #pending = new Map<() => void, RouteSchema>();

  /** For Fastify({ schemaController: { compilersFactory } }). */
  readonly factory: CompilersFactory = {
    buildValidator: ((externalSchemas: ExternalSchemas, options: unknown) => {
      let compile: ((route: RouteSchema) => Validate) | undefined;
      return (route: RouteSchema) => {
        // fastify lower-cases a headers schema only for its default compiler; no route validates headers, and one
        // that starts to must not silently lose that.
        if (route.httpPart === "headers")
          throw new Error(
            `${route.method} ${route.url}: headers schemas are not supported (see src/api/schema-compilers.ts)`,
          );
        const ensure = this.#onFirstUse(
          route,
          () =>
            (compile ??= (
              defaultCompilers().buildValidator as (e: ExternalSchemas, o: unknown) => (r: RouteSchema) => Validate
            )(externalSchemas, options)),
        );
        const validate: Validate = (data, context) => {
          const fn = ensure();
          const ok = fn(data, context);
          // fastify reads the errors from the function it called.
          validate.errors = fn.errors;
          return ok;
        };
        // Ajv's functions have schemaEnv; fastify then passes the parent object, so that Ajv can coerce a root value.
        validate.schemaEnv = true;
        return validate;
      };
    }) as BuildValidator,
    buildSerializer: ((externalSchemas: ExternalSchemas, options: unknown) => {
      let compile: ((route: RouteSchema) => Serialize) | undefined;
      return (route: RouteSchema) => {
        const ensure = this.#onFirstUse(
          route,
          () =>
            (compile ??= (
              defaultCompilers().buildSerializer as (e: ExternalSchemas, o: unknown) => (r: RouteSchema) => Serialize
            )(externalSchemas, options)),
        );
        return (data: unknown) => ensure()(data);
      };
    }) as BuildSerializer,
  };

  /** Compiles route's schema with the compiler `compiler` gives, once, when first asked; pending until then. */
  #onFirstUse<F>(route: RouteSchema, compiler: () => (route: RouteSchema) => F): () => F {
    let compiled: F | undefined;
    const ensure = (): F => {
      if (compiled) return compiled;
      try {
        compiled = compiler()(route);
      } catch (err) {
        throw compileError(route, err);
      }
      this.#pending.delete(ensure);
      return compiled;
    };
    this.#pending.set(ensure, route);
    return ensure;
  }

  /** Compiles every schema not compiled yet (a failure names its route); returns how many it compiled. */
  compileAll(): number {
    return this.compileWhere(() => true);
  }

  /** Compiles the schemas not compiled yet of the routes `which` picks (by method and URL); returns how many. */
  compileWhere(which: (route: { method: string; url: string }) => boolean): number {
    const picked = [...this.#pending].filter(([, r]) => which({ method: r.method ?? "", url: r.url ?? "" }));
    for (const [ensure] of picked) ensure();
    return picked.length;
  }
}
