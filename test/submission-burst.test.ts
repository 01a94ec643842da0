// A burst of submissions while tasks run, on SQLite and PostgreSQL: every submission is answered, accepted (202) or
// refused with Retry-After once the backlog is full (429), none is lost, and every accepted task then runs, as Azure
// shows at the end: each scale set has the capacity its last accepted submission asked for. Functional, not timed.
import t, { type Test } from "tap";
import { Agent, request } from "undici";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { demo, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const CALLERS = 24;
const PER_CALLER = 12;
/** Below CALLERS × PER_CALLER, so that the burst can fill the backlog (whether it does depends on the machine). */
const BACKLOG_LIMIT = 150;

t.setTimeout(600_000);

async function storeEnv(t: Test, kind: "sqlite" | "postgres"): Promise<Record<string, string>> {
  if (kind === "sqlite") {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-burst-"));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    return { TASK_STORE: "sqlite", DATA_DIR: dataDir };
  }
  const name = `vmss_ops_burst_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return {
    TASK_STORE: "postgres",
    DATABASE_URL: Object.assign(new URL(DATABASE_URL), { pathname: `/${name}` }).toString(),
  };
}

for (const kind of ["sqlite", "postgres"] as const) {
  t.test(
    `${kind}: a burst while tasks run is accepted or refused with Retry-After, none lost, every accepted task run`,
    async (t) => {
      const env = await startTestEnv({
        writeDurationMs: 40,
        env: {
          ...(await storeEnv(t, kind)),
          TASK_BACKLOG_LIMIT: String(BACKLOG_LIMIT),
          RATE_LIMIT_SUBMISSIONS: "0",
          OVERLOAD_RETRY_AFTER_S: "3",
        },
      });
      t.teardown(() => env.close());
      const names = Array.from({ length: CALLERS }, (_, c) => `burst-${c}`);
      for (const name of names)
        await env.simControl("PUT", `/_sim/scaleSets/demo-rg/${name}`, { capacity: 1, loadBalanced: false });

      // Tasks are running when the burst comes: a long write on each demo scale set.
      await env.simControl("PUT", "/_sim/config", { writeDurationMs: 2000 });
      const running: string[] = [];
      for (const name of ["web-prod-v001", "web-prod-v002"]) {
        running.push(
          (
            await env.api(
              "POST",
              "/azure/ops/resizeServerGroup",
              demo(name, { capacity: { min: 0, max: 10, desired: 4 } }),
            )
          ).body.id,
        );
      }
      await waitFor(
        async () =>
          (await Promise.all(running.map((id) => env.api("GET", `/task/${id}`)))).every(
            (r) => r.body.state === "running",
          ),
        { what: "the first tasks to run" },
      );
      await env.simControl("PUT", "/_sim/config", { writeDurationMs: 40 });

      // Each caller sends its submissions to its own scale set, one after another: the last one it had accepted is
      // the capacity Azure must show at the end.
      const agent = new Agent({ connections: CALLERS });
      t.teardown(() => agent.close());
      const accepted: string[] = [];
      const refused: { status: number; retryAfter: string | undefined; error: string }[] = [];
      const lost: string[] = [];
      const lastAccepted = new Map<string, number>();
      await Promise.all(
        names.map(async (name, c) => {
          for (let i = 0; i < PER_CALLER; i++) {
            const desired = 2 + ((c + i) % 4);
            const res = await request(`${env.baseUrl}/azure/ops/resizeServerGroup`, {
              dispatcher: agent,
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(demo(name, { capacity: { min: 0, max: 10, desired } })),
            });
            const body = (await res.body.json()) as { id?: string; error?: string };
            if (res.statusCode === 202 && body.id) {
              accepted.push(body.id);
              lastAccepted.set(name, desired);
            } else if (res.statusCode === 429 || res.statusCode === 503) {
              refused.push({
                status: res.statusCode,
                retryAfter: res.headers["retry-after"] as string | undefined,
                error: String(body.error),
              });
            } else lost.push(`${res.statusCode} ${JSON.stringify(body)}`);
          }
        }),
      );
      t.same(lost, [], "every submission was answered 202, 429 or 503");
      t.equal(accepted.length + refused.length, CALLERS * PER_CALLER, "one answer per submission");
      t.ok(
        accepted.length >= Math.min(BACKLOG_LIMIT, CALLERS * PER_CALLER) - CALLERS,
        `${accepted.length} accepted, ${refused.length} refused`,
      );
      const unlike = refused.filter((r) => r.status !== 429 || r.retryAfter !== "3" || r.error !== "BacklogFull");
      t.same(unlike, [], "a refusal says when to come back, and comes only when the backlog is full");

      // Every accepted task runs to its end, and Azure shows the capacity each caller last had accepted.
      const ended = [];
      for (const id of [...running, ...accepted]) ended.push(await env.waitForTask(id, 300_000));
      t.same(
        ended.filter((task) => task.state !== "succeeded").map((task) => task.id),
        [],
        `all ${ended.length} accepted tasks succeeded`,
      );
      const shown = new Map<string, number>();
      for (const name of names)
        shown.set(name, (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.vmss.sku.capacity);
      t.same(
        shown,
        new Map(names.map((name) => [name, lastAccepted.get(name) ?? 1])),
        "Azure shows on each scale set the capacity last accepted for it",
      );
    },
  );
}
