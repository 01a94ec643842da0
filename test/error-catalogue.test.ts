// The error catalogue (src/api/error-catalogue.ts) is the one list of what the API can answer: every code the
// service sends is in it, every entry is in the OpenAPI document and in docs/api.md, and what apiError() builds is
// what the error handler sends.
import t from "tap";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import Fastify from "fastify";
import { API_ERRORS, apiError, catalogueEntries } from "../src/api/error-catalogue.ts";
import { installErrorHandling } from "../src/api/errors.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { API_DOC, withErrorTable } from "../scripts/write-error-table.ts";

const root = new URL("..", import.meta.url).pathname;
const codes = new Set(Object.keys(API_ERRORS));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

// The simulator plays Azure and answers Azure's codes; the CLI is a client that reads ours.
const service = sources(join(root, "src")).filter((f) => !/\/src\/(simulator|cli)\//.test(f));

t.test("every error code the service sends is in the catalogue, and is built by apiError", async (t) => {
  const unknown: string[] = [];
  const handBuilt: string[] = [];
  for (const file of service) {
    const text = readFileSync(file, "utf8");
    const where = relative(root, file);
    for (const m of text.matchAll(/apiError\(\s*"(\w+)"|\berror: "([A-Z]\w+)"/g)) {
      const code = m[1] ?? m[2];
      if (!codes.has(code)) unknown.push(`${where}: ${code}`);
    }
    if (!where.endsWith("error-catalogue.ts") && /new ApiError\(/.test(text)) handBuilt.push(where);
  }
  t.same(unknown, [], "codes sent that the catalogue does not declare");
  t.same(
    handBuilt,
    [],
    "an ApiError is built with apiError(code, params), whose status and message are the catalogue's",
  );
  t.ok(service.length > 50, `read ${service.length} source files`);
});

t.test(
  "every catalogue entry is in the OpenAPI document: routes name theirs, ErrorResponse the ones any route may answer",
  async (t) => {
    const document = JSON.parse(readFileSync(DEFAULT_OPENAPI_PATH, "utf8"));
    const errorResponse = document.components.schemas.ErrorResponse;
    t.same(
      [...errorResponse.properties.error.enum].sort(),
      [...codes].sort(),
      "ErrorResponse.error lists the catalogue's codes",
    );
    const routeDescriptions: string[] = [];
    for (const methods of Object.values<Record<string, { responses?: Record<string, { description?: string }> }>>(
      document.paths,
    )) {
      for (const op of Object.values(methods)) {
        for (const [status, answer] of Object.entries(op.responses ?? {}))
          if (Number(status) >= 400) routeDescriptions.push(`${status} ${answer.description ?? ""}`);
      }
    }
    for (const e of catalogueEntries()) {
      if (e.scope === "any") {
        t.ok(
          errorResponse.description.includes(`${e.status} ${e.code} (`),
          `${e.code}: on ErrorResponse, as any route may answer it`,
        );
      } else {
        const named = routeDescriptions.filter(
          (d) => d.startsWith(`${e.status} `) && new RegExp(`\\b${e.code}: `).test(d),
        );
        t.ok(named.length > 0, `${e.status} ${e.code}: named by a route of the OpenAPI document`);
      }
    }
  },
);

t.test("docs/api.md's error table is the catalogue's (npm run docs:errors)", async (t) => {
  const page = readFileSync(API_DOC, "utf8");
  t.equal(
    page,
    withErrorTable(page),
    "docs/api.md's error table differs from the catalogue: run npm run docs:errors and commit the result",
  );
  for (const code of codes) t.match(page, `\`${API_ERRORS[code as keyof typeof API_ERRORS].status} ${code}\``);
});

t.test("what apiError builds is what the error handler sends: status, body and Retry-After", async (t) => {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  app.get("/backlog", () => {
    throw apiError("BacklogFull", { queued: 3, limit: 3, retryAfterSeconds: 7 });
  });
  app.get("/unknown", () => {
    throw apiError("UnknownOperation", { operation: "resize", known: ["resizeServerGroup"] });
  });
  app.get("/cursor", () => {
    throw apiError("InvalidCursor", { cursor: "nope" });
  });
  t.teardown(() => app.close());

  const backlog = await app.inject({ url: "/backlog" });
  t.equal(backlog.statusCode, 429);
  t.equal(backlog.headers["retry-after"], "7");
  t.same(backlog.json(), {
    statusCode: 429,
    error: "BacklogFull",
    message:
      "3 tasks are waiting to start, the most this service takes (TASK_BACKLOG_LIMIT 3); nothing was created, retry after 7 s",
  });
  const unknown = await app.inject({ url: "/unknown" });
  t.same(unknown.json(), {
    statusCode: 404,
    error: "UnknownOperation",
    message: 'unknown operation "resize"; known: resizeServerGroup',
    knownOperations: ["resizeServerGroup"],
  });
  const cursor = (await app.inject({ url: "/cursor" })).json();
  t.equal(cursor.statusCode, 400);
  t.same(
    cursor.details,
    [{ field: "query.cursor", message: cursor.message.replace(/^query\.cursor: /, "") }],
    "the field named in details, the same words in the message",
  );
});

t.test("each entry's status is an error status, and its example makes a sentence", async (t) => {
  for (const e of catalogueEntries()) {
    t.ok(e.status >= 400 && e.status < 600, `${e.code}: ${e.status}`);
    t.ok(e.example.length > 0 && e.when.length > 0, `${e.code}: says when, and what`);
  }
});
