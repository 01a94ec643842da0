// Writes the table of errors in docs/api.md from the error catalogue (src/api/error-catalogue.ts), between its
// markers, so that the page lists exactly the codes the API answers, with their statuses and messages.
//   npm run docs:errors             write the table
//   npm run docs:errors -- --check  exit 1 if the page's table differs from the catalogue (test/error-catalogue.test.ts)
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { catalogueEntries } from "../src/api/error-catalogue.ts";
import { runAsScript, writeOrCheck } from "./generated-part.ts";

export const API_DOC = fileURLToPath(new URL("../docs/api.md", import.meta.url));
const START = "<!-- error table: generated from src/api/error-catalogue.ts by npm run docs:errors -->";
const END = "<!-- end of error table -->";

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** The table as the catalogue has it, one row per code, by status. */
export function errorTable(): string {
  const rows = catalogueEntries()
    .sort((a, b) => a.status - b.status)
    .map(
      (e) =>
        `| \`${e.status} ${e.code}\` | ${cell(e.when)}${e.retryAfter ? " (with `Retry-After`)" : ""} | ${cell(`\`${e.example.replace(/`/g, "'")}\``)} |`,
    );
  return ["| status `error` | when | message, e.g. |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The page with its table replaced by the catalogue's. */
export function withErrorTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no error table markers (${START} … ${END})`);
  return `${page.slice(0, start)}${START}\n${errorTable()}\n${page.slice(end)}`;
}

async function main(argv: string[]): Promise<number> {
  const page = await readFile(API_DOC, "utf8");
  return writeOrCheck(
    {
      path: API_DOC,
      current: page,
      wanted: withErrorTable(page),
      what: "docs/api.md's error table",
      source: "src/api/error-catalogue.ts",
      command: "npm run docs:errors",
    },
    argv,
  );
}

runAsScript(import.meta.url, "write-error-table", main);
