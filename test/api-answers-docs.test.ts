// docs/api.md's "Every answer, route by route" describes every answer each route can give, as the OpenAPI document
// declares them (src/api/route-answers.ts, each route's errorResponses): every route of the document has its row,
// and every success status and every error code the route declares is named in its row, or, for the answers every
// route shares, in the paragraph above the table. A route or an answer added without a word in the docs fails here.
import t from "tap";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { API_ERRORS } from "../src/api/error-catalogue.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { REPO } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const SECTION = "## Every answer, route by route";
/**
 * The document names the catch-all for operations this service does not run `/azure/ops/{operation}`, as the docs
 * name the routes of those it does run; the docs call the catch-all `{anything else}`.
 */
const ROW_OF: Record<string, string> = { unknownOperation: "POST /azure/ops/{anything else}" };

interface Row {
  routes: string[];
  text: string;
}

async function answersSection(): Promise<{ shared: string; rows: Row[] }> {
  const md = await readFile(join(REPO, "docs", "api.md"), "utf8");
  const start = md.indexOf(SECTION);
  if (start < 0) throw new Error(`docs/api.md has no section "${SECTION}"`);
  const end = md.indexOf("\n## ", start + SECTION.length);
  const lines = md.slice(start + SECTION.length, end < 0 ? undefined : end).split("\n");
  const table = lines.filter((l) => l.startsWith("|")).slice(2); // past the header and its rule
  const rows = table.map((line) => {
    const [first, ...rest] = line.split(/(?<!\\)\|/).slice(1, -1);
    return {
      routes: [...first.matchAll(/`([A-Z]+) ([^`]+)`/g)].map((m) => `${m[1]} ${m[2]}`),
      text: rest.join(" | "),
    };
  });
  return { shared: lines.filter((l) => !l.startsWith("|")).join("\n"), rows };
}

/** `{name}` → `{}`, so that the docs' names of path parameters need not be the document's. */
const normalized = (route: string) => route.replace(/\{[^}]*\}/g, "{}");

/** A docs route as a pattern: `{…}` stands for one segment the document spells out, `…` for the rest of the path. */
function pattern(route: string): RegExp {
  const escaped = normalized(route)
    .split(/(\{\}|…)/)
    .map((part) => (part === "{}" ? "[^/{}]+" : part === "…" ? ".*" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${escaped}$`);
}

/** How much of a docs route is spelled out (not a parameter, not `…`): the more, the more specific. */
const literal = (name: string) => name.replace(/\{[^}]*\}|…/g, "").length;

/**
 * The row that describes `route` ("POST /azure/ops"): the one naming it, else the one whose pattern spells out most
 * of it (the first, of equals). The rows ROW_OF names are for the operations it names only.
 */
function rowOf(rows: Row[], route: string): Row | undefined {
  const special = new Set(Object.values(ROW_OF));
  const candidates = rows.flatMap((r) => r.routes.filter((name) => !special.has(name)).map((name) => ({ r, name })));
  const exact = candidates.find(({ name }) => normalized(name) === normalized(route));
  if (exact) return exact.r;
  const matching = candidates.filter(({ name }) => pattern(name).test(route));
  matching.sort((a, b) => literal(b.name) - literal(a.name));
  return matching[0]?.r;
}

const CODES = new Set(Object.keys(API_ERRORS));

/** The catalogue's codes a response's description names ("NotFound: an unknown task …. AzureError: …"). */
function codesOf(description: string | undefined): string[] {
  return [...(description ?? "").matchAll(/\b([A-Z][A-Za-z]+): /g)].map((m) => m[1]).filter((c) => CODES.has(c));
}

const mentions = (text: string, word: string) => new RegExp(`(^|[^\\w])${word}([^\\w]|$)`).test(text);

const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
const { shared, rows } = await answersSection();

void t.test("the section parses: a table of routes, and what every route may answer above it", (t) => {
  t.ok(rows.length > 10, `${rows.length} rows`);
  t.same(
    rows.filter((r) => r.routes.length === 0).map((r) => r.text),
    [],
    "each row names its routes as `METHOD /path`",
  );
  t.match(shared, /401 Unauthorized/);
  t.end();
});

for (const [path, item] of Object.entries<Json>(document.paths)) {
  for (const method of ["get", "post", "put", "delete", "patch"]) {
    const op = item[method];
    if (!op) continue;
    const route = `${method.toUpperCase()} ${path}`;
    void t.test(`${route} (${op.operationId})`, (t) => {
      const row = ROW_OF[op.operationId]
        ? rows.find((r) => r.routes.includes(ROW_OF[op.operationId]))
        : rowOf(rows, route);
      if (!row) {
        t.fail(`docs/api.md's "${SECTION}" has no row for ${route}`);
        return t.end();
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (status === "default") continue;
        const codes = codesOf(response.description);
        if (/^2/.test(status) || codes.length === 0) {
          t.ok(
            mentions(row.text, status) || mentions(shared, status),
            `${status} (${response.description}) is named in the row of ${row.routes.join(", ")}`,
          );
          continue;
        }
        for (const code of codes)
          t.ok(
            mentions(row.text, code) || mentions(shared, code),
            `${status} ${code} is named in the row of ${row.routes.join(", ")}, or above the table`,
          );
      }
      t.end();
    });
  }
}

void t.test("cancel's answers: a task canceled at once, one still queued, one running", (t) => {
  const row = rowOf(rows, "POST /task/{id}/cancel");
  for (const state of ["canceled", "queued", "running"]) t.match(row?.text, new RegExp(`\`${state}\``));
  t.end();
});
