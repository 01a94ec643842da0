// Writes the table of errors in docs/api.md from the error catalogue (src/api/error-catalogue.ts), between its
// markers, so that the page lists exactly the codes the API answers, with their statuses and messages.
//   npm run docs:errors             write the table
//   npm run docs:errors -- --check  exit 1 if the page's table differs from the catalogue (test/error-catalogue.test.ts)
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { catalogueEntries } from "../src/api/error-catalogue.ts";

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
    .map((e) => `| \`${e.status} ${e.code}\` | ${cell(e.when)}${e.retryAfter ? " (with `Retry-After`)" : ""} | ${cell(`\`${e.example.replace(/`/g, "'")}\``)} |`);
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
  const wanted = withErrorTable(page);
  if (argv.includes("--check")) {
    if (page === wanted) return 0;
    console.error("docs/api.md's error table differs from src/api/error-catalogue.ts. Run `npm run docs:errors` and commit the result.");
    return 1;
  }
  if (page !== wanted) await writeFile(API_DOC, wanted);
  console.log(page === wanted ? "docs/api.md's error table is already up to date." : "wrote docs/api.md's error table");
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error("write-error-table failed:", err);
      process.exit(1);
    },
  );
}
