// How a variable is read: whole numbers, booleans, numbers above 0, files, and YAML documents. Every problem is a
// ConfigError that names the variable; start-up stops on it (exit code 2).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type Env = Record<string, string | undefined>;

/**
 * The environment with a renamed variable read from its former name when it is unset itself, so that a deployment
 * that still sets the former name keeps working (docs/configuration.md lists the former names).
 */
export function withFormerName(env: Env, name: string, formerName: string): Env {
  const unset = env[name] === undefined || env[name] === "";
  return unset && env[formerName] !== undefined ? { ...env, [name]: env[formerName] } : env;
}

export function intVar(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function positiveNumberVar(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(value > 0))
    throw new ConfigError(`${name} must be a number above 0, e.g. 1 or 0.5, got "${env[name]}"`);
  return value;
}

export function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1" || raw === "yes") return true;
  if (raw === "false" || raw === "0" || raw === "no") return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** The content of the file the variable names; undefined when it names none. */
export function readFileVar(env: Env, name: string): string | undefined {
  const path = env[name];
  if (!path) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A file's content, or undefined when it cannot be read (the caller says which key named it). */
export function fileReadable(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** yaml, loaded with the first configuration document: most deployments have none, and loading it costs 20-30 ms. */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/** A configuration document: YAML, of which JSON is a subset. */
export function parseDocument(text: string, source: string): unknown {
  try {
    return yaml().parse(text);
  } catch (err) {
    const position = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new ConfigError(
      `${source} is not valid YAML or JSON${position ? ` (line ${position.line}, column ${position.col})` : ""}`,
    );
  }
}
