// A request's logger is made when it first writes a line at a level that is logged: a request that logs nothing
// makes no child logger, and a line that is logged carries the request's bindings (its id, its principal).
import t from "tap";
import { Writable } from "node:stream";
import Fastify from "fastify";
import { LazyChildLogger } from "../src/observability/request-logger.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

t.test("nothing below the level makes the child; a line at it carries every binding", async (t) => {
  const { lines, stream } = capture();
  const app = Fastify({ logger: { level: "info", stream } });
  t.teardown(() => app.close());
  let children = 0;
  const parent = app.log;
  const counting = Object.assign(Object.create(parent), {
    child: (...args: Parameters<typeof parent.child>) => (children++, parent.child(...args)),
  });
  const log = new LazyChildLogger(counting, { reqId: "req-1" }, { level: "warn" }).child({ principal: "team-a" });
  log.info("not logged at warn");
  log.debug("nor this");
  t.equal(children, 0, "no child made");
  t.equal(log.level, "warn");
  log.warn({ taskId: "t1" }, "logged");
  await new Promise((r) => setImmediate(r));
  t.equal(children, 1, "made once it logs");
  t.match(lines, [{ level: 40, reqId: "req-1", principal: "team-a", taskId: "t1", msg: "logged" }]);
  log.error("again");
  t.equal(children, 1, "and only once");
});

t.test(
  "the service: one line per request at its end, with the request id and principal; a poll of a task writes none",
  async (t) => {
    const { stream, lines } = jsonLogLines();
    const TOKEN = "request-log-token-0123456789abcdef";
    const env = await startTestEnv({
      logger: { level: "info", stream },
      headers: { authorization: `Bearer ${TOKEN}` },
      env: { AUTH_TOKENS: JSON.stringify([{ name: "pipeline-a", token: TOKEN, accounts: ["demo"] }]) },
    });
    t.teardown(() => env.close());
    const submitted = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 2 } }),
    );
    t.equal(submitted.status, 202);
    await waitFor(() => lines.some((l) => l.msg === "request completed"), {
      what: "the submission's request line",
    });
    const requestLines = lines.filter((l) => (l.req as { method?: string } | undefined)?.method === "POST");
    t.equal(requestLines.length, 1, "one line for the submission, not one as it came and one as it ended");
    t.match(requestLines[0], {
      level: 30,
      msg: "request completed",
      reqId: String,
      principal: "pipeline-a",
      res: { statusCode: 202 },
      responseTime: Number,
    });
    const before = lines.length;
    for (let i = 0; i < 3; i++) t.equal((await env.api("GET", `/task/${submitted.body.id}`)).status, 200);
    const health = await env.api("GET", "/health");
    t.equal(health.status, 200);
    await waitFor(() => lines.slice(before).some((l) => (l.req as { url?: string } | undefined)?.url === "/health"), {
      what: "the /health request line",
    });
    t.same(
      lines.slice(before).filter((l) => String((l.req as { url?: string } | undefined)?.url).startsWith("/task/")),
      [],
      "GET /task/{id} logs at warn: nothing for a poll that went well",
    );
  },
);
