// Log lines written outside the service's logger (before it exists, or from a pool callback), in the logger's own
// JSON shape (pino's: level number, time, pid, hostname, msg), so that every line a replica prints parses as JSON.
import { hostname } from "node:os";

const LEVELS = { info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** One JSON line on stdout, as the service's logger writes them. */
export function writeLogLine(level: keyof typeof LEVELS, msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(
    `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`,
  );
}

/**
 * The start-up banner: for a person at a terminal, the lines as they are; for a log collector (stdout not a
 * terminal: a container, a pipe), one JSON line whose message is the first line and which carries all of them.
 * Written whatever LOG_LEVEL says: it is how a replica says where it listens.
 */
export function printBanner(lines: string[], isTerminal = process.stdout.isTTY === true): void {
  if (isTerminal) process.stdout.write(`${lines.join("\n")}\n`);
  else writeLogLine("info", lines[0] ?? "", { banner: lines });
}
