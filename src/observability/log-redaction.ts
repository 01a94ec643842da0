// What the service's log never carries: a bearer token from a request's headers, and any value under a key that names
// a secret (an account's clientSecret, a password, a token, what ARM takes and never returns on a read: a VM's
// adminPassword, customData, an extension's protectedSettings), at the top of a logged object or one level into it.
// A dry run's ARM requests (src/azure/write-requests.ts) are censored by the same keys, at any depth.
//
// The headers are pino's redaction paths: pino applies them only to a line that has a `req` or `headers` key. The
// secret keys are a formatter instead. As pino redaction paths they were wildcards (`*.clientSecret`), and pino runs a
// wildcard path's redactor on every top-level value of every line, cloning and parsing the paths again each time:
// some 75 KB of garbage per resize for the ten lines it logs, none of which holds a secret. The formatter looks
// at each top-level value once and copies the line only when there is something to censor. It sees what a line logs,
// not a child logger's bindings (pino gives those no formatter): the service's children bind a request id and a
// principal's name, nothing else.
import { traceLogFields, tracingEnabled } from "../tracing/spans.ts";

/** What a censored value reads in the log. */
export const CENSORED = "[redacted]";

/** Keys whose values are never logged, at the top of a line or one level into one of its values. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  "clientSecret",
  "password",
  "token",
  "adminPassword",
  "customData",
  "protectedSettings",
]);

/** Request headers that are never logged (pino's redaction paths: only lines that have these keys pay for them). */
const REDACTED_PATHS = ["req.headers.authorization", "headers.authorization"];

/** Whether value is an object with a secret key set; a loop rather than a list, since every value of every line asks. */
function holdsSecret(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const key of SECRET_KEYS)
    if (Object.hasOwn(value, key) && (value as Record<string, unknown>)[key] !== undefined) return true;
  return false;
}

/** A copy of value with its secrets censored; an Error stays an Error, with its message and stack. */
function censored(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> =
    value instanceof Error
      ? Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>, value, {
          message: value.message,
          stack: value.stack,
        })
      : { ...value };
  for (const key of SECRET_KEYS) if (Object.hasOwn(copy, key) && copy[key] !== undefined) copy[key] = CENSORED;
  return copy;
}

/**
 * The object to log: obj itself when no secret key is in it (the common case: nothing is allocated), otherwise a
 * copy with those values censored. The caller's object is never changed.
 */
export function censorSecrets(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    if (SECRET_KEYS.has(key) && value !== undefined) (out ??= { ...obj })[key] = CENSORED;
    else if (holdsSecret(value)) (out ??= { ...obj })[key] = censored(value);
  }
  return out ?? obj;
}

/** Whether a value under this key is a secret, in a log line or in a dry run's request. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key);
}

/**
 * A copy of a JSON value (an ARM request's body) with every value under a secret key censored, at any depth: a body
 * nests its secrets (properties.virtualMachineProfile.osProfile.adminPassword), where a log line holds them near
 * its top. The keys are the log's.
 */
export function censorSecretsDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(censorSecretsDeep);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = SECRET_KEYS.has(key) && v !== undefined && v !== null ? CENSORED : censorSecretsDeep(v);
  return out;
}

/** The service's pino options (fastify passes them on): the level, and the redaction above. */
export function serviceLoggerOptions(level: string): Record<string, unknown> {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: CENSORED },
    formatters: { log: censorSecrets },
    // Traced (OTEL_EXPORTER_OTLP_ENDPOINT): each line names the span it was written in, and so the task's trace.
    ...(tracingEnabled() ? { mixin: traceLogFields } : {}),
  };
}
