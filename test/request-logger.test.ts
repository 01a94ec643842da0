// A request's logger is made when it first writes a line at a level that is logged: a request that logs nothing
// makes no child logger, and a line that is logged carries the request's bindings (its id, its principal).
import t from "tap";
import { Writable } from "node:stream";
import Fastify from "fastify";
import { LazyChildLogger } from "../src/observability/request-logger.ts";

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
