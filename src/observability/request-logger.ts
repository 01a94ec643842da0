// Each request's logger, made when the request first writes a line at a level that is logged. Fastify gives every
// request a child logger with its request id bound; pino serializes and redacts a child's bindings as it makes it,
// and most requests never log anything at their level (GET /task/{id}, polled all day, logs at warn): that work
// was done for nothing on nearly every poll. Here the child is made on first use, so a line logged still carries
// the request id (and, through child(), the principal), and a request that logs nothing costs one small object.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from "fastify";

type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger["child"]>[1]>;

/** pino's level values; a level not here (a custom one) always makes the child, which decides. */
const LEVEL_VALUES: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

type LineWriter = (...args: unknown[]) => void;

export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;
  /** Lines below this level are dropped without making the child. */
  #threshold: number;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions = {}) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
    this.#threshold = LEVEL_VALUES[options.level ?? parent.level] ?? 0;
  }

  #logger(): FastifyBaseLogger {
    const parent = this.#parent instanceof LazyChildLogger ? this.#parent.#logger() : this.#parent;
    return (this.#child ??= parent.child(this.#bindings, this.#options));
  }

  #write(level: "trace" | "debug" | "info" | "warn" | "error" | "fatal", args: unknown[]): void {
    if (LEVEL_VALUES[level] < this.#threshold) return;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it to spread into pino's overloads
    (this.#logger()[level] as LineWriter)(...args);
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger().level = level;
    this.#threshold = LEVEL_VALUES[level] ?? 0;
  }

  trace(...args: unknown[]): void {
    this.#write("trace", args);
  }

  debug(...args: unknown[]): void {
    this.#write("debug", args);
  }

  info(...args: unknown[]): void {
    this.#write("info", args);
  }

  warn(...args: unknown[]): void {
    this.#write("warn", args);
  }

  error(...args: unknown[]): void {
    this.#write("error", args);
  }

  fatal(...args: unknown[]): void {
    this.#write("fatal", args);
  }

  silent(): void {}

  /** Another lazy child: made, with this one, when it first logs. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return new LazyChildLogger(this, bindings, options ?? {});
  }
}

/** Fastify's childLoggerFactory: the request's logger, made on first use. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}

/**
 * Fastify's own lines about requests, but not its two per request (incoming, completed): the service writes one
 * line as a request ends (its onResponse hook), with the same fields; a line is a write to stdout. A response that
 * failed as it was sent, the default error handler's and a serializer's failures are still fastify's to log.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}
