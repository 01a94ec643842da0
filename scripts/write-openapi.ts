// Writes the service's OpenAPI document, generated from the route schemas, to openapi/openapi.json: the file that
// GET /openapi.json serves.
//   npm run openapi             write the file
//   npm run openapi -- --check  exit 1 if the file differs from what the routes produce (CI, tests)
// OPENAPI_FILE=path overrides the file (the tests use it to check a tampered copy).
// Nothing is contacted: the app is built with an external simulator URL that is never called.
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildApp } from "../src/app.ts";
import { OPENAPI_FILE } from "../src/api/openapi.ts";
import { loadConfig } from "../src/startup-config.ts";
import { runAsScript } from "./generated-part.ts";

/** The checked-in document (the one the service serves). */
export const DEFAULT_OPENAPI_PATH = fileURLToPath(OPENAPI_FILE);

/** The document as the routes produce it, serialized the way it is checked in (2-space indent, trailing newline). */
export async function generateOpenApi(): Promise<{ document: Record<string, unknown>; text: string }> {
  const config = loadConfig({ SIMULATOR: "external", SIMULATOR_URL: "https://127.0.0.1:1", LOG_LEVEL: "silent" });
  const service = await buildApp({ config, logger: false, generateOpenApi: true });
  try {
    const document = service.app.swagger() as unknown as Record<string, unknown>;
    // Round-trip so that the returned object is plain JSON, detached from the app.
    const text = `${JSON.stringify(document, null, 2)}\n`;
    return { document: JSON.parse(text) as Record<string, unknown>, text };
  } finally {
    await service.close();
  }
}

/** A short, human-readable hint of where two texts first differ (line numbers are 1-based). */
export function diffHint(expected: string, actual: string, context = 3): string {
  const a = expected.split("\n");
  const b = actual.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return "(no difference)";
  let ea = a.length - 1;
  let eb = b.length - 1;
  while (ea > i && eb > i && a[ea] === b[eb]) {
    ea--;
    eb--;
  }
  const lines = [
    `first difference at line ${i + 1} (generated has ${a.length} lines, checked-in file has ${b.length}):`,
  ];
  for (let k = Math.max(0, i - context); k < i; k++) lines.push(`  ${a[k]}`);
  const shown = 12;
  for (let k = i; k <= ea && k < i + shown; k++) lines.push(`- ${a[k]}`);
  if (ea - i + 1 > shown) lines.push(`- … ${ea - i + 1 - shown} more generated line(s)`);
  for (let k = i; k <= eb && k < i + shown; k++) lines.push(`+ ${b[k]}`);
  if (eb - i + 1 > shown) lines.push(`+ … ${eb - i + 1 - shown} more checked-in line(s)`);
  lines.push("  (- generated from the routes, + checked in)");
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  const OPENAPI_PATH = process.env.OPENAPI_FILE ? resolve(process.env.OPENAPI_FILE) : DEFAULT_OPENAPI_PATH;
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) {
    console.error(`write-openapi: unknown argument(s) ${unknown.join(" ")}; usage: write-openapi.ts [--check]`);
    return 2;
  }
  const check = argv.includes("--check");
  const { text } = await generateOpenApi();
  const shown = relative(process.cwd(), OPENAPI_PATH) || OPENAPI_PATH;
  let current: string | undefined;
  try {
    current = await readFile(OPENAPI_PATH, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (check) {
    if (current === undefined) {
      console.error(`${shown} does not exist. Run \`npm run openapi\` and commit the result.`);
      return 1;
    }
    if (current !== text) {
      console.error(
        `${shown} is out of date with the routes. Run \`npm run openapi\` and commit the result.\n${diffHint(text, current)}`,
      );
      return 1;
    }
    console.log(`${shown} is up to date.`);
    return 0;
  }
  if (current === text) {
    console.log(`${shown} is already up to date.`);
    return 0;
  }
  await mkdir(dirname(OPENAPI_PATH), { recursive: true });
  await writeFile(OPENAPI_PATH, text);
  console.log(`wrote ${shown} (${text.length} bytes)`);
  return 0;
}

runAsScript(import.meta.url, "write-openapi", main);
