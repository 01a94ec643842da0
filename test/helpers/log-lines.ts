// Test fixture: a stream for the service's logger that keeps every line written to it, parsed as the JSON it must be,
// so that a test looks for the log line it expects by its fields.
import { Writable } from "node:stream";

/** The stream to give the logger (`logger: { stream }`) and the lines written to it so far. */
export function jsonLogLines<Line = Record<string, unknown>>(): { stream: Writable; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}
