// PostgreSQL creates alone, without HTTP: K callers each creating tasks one after another (as K submissions in
// flight do), on 1,000 scale sets, for a few seconds. Prints creates per second, the p50/p99 of a create, and the
// database server's and this process's CPU per create (the server's from pg_stat_activity's backends in /proc).
// With --ends N, N runners meanwhile end tasks of their own (another schema), each one every 0 to 2 × --end-every-ms
// ms, as the tasks a replica runs end during a burst: a task's end commits, frees its scale sets and NOTIFYs, and
// what it holds while committing is what the creates may wait for.
//
//   node bench/pg-creates.ts [--callers 32] [--seconds 3] [--rounds 3] [--think-ms 0] [--ends 0] [--end-every-ms 200]
import { loadavg } from "node:os";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { cpuMsOf } from "./measure.ts";

/** A server process may have ended between listing and reading: it then counts nothing. */
function cpuMsOrZero(pid: number): number {
  try {
    return cpuMsOf(pid);
  } catch {
    return 0;
  }
}

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const callers = option("--callers", 32);
const seconds = option("--seconds", 3);
const rounds = option("--rounds", 3);
/** Each caller waits 0 to this many ms (at random) between its creates, as submissions arrive over HTTP. */
const thinkMs = option("--think-ms", 0);
const ends = option("--ends", 0);
const endEveryMs = option("--end-every-ms", 200);
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const name = `vmss_ops_pg_creates_${randomBytes(4).toString("hex")}`;
await admin.query(`CREATE DATABASE ${name}`);
try {
  const connectionString = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const store = await PostgresTaskStore.open({ connectionString });
  // The ending runners' tasks, created and claimed before the rounds: enough for every end of every round.
  const ending = ends > 0 ? await PostgresTaskStore.open({ connectionString, schema: "ending" }) : undefined;
  const endable: string[] = [];
  if (ending) {
    const count = Math.ceil(((ends * seconds * rounds * 1000) / endEveryMs) * 1.5);
    await Promise.all(
      Array.from({ length: count }, (_, k) =>
        ending.create({
          operations: [{ name: "resizeServerGroup", description: { serverGroupName: `end-${k}` } }],
          scaleSets: [`demo/eastus/demo-rg/end-${k}`],
        }),
      ),
    );
    endable.push(...(await ending.claim("ending", 3_600_000, count)).map((t) => t.id));
  }
  let endsDone = 0;
  let i = 0;
  const backends = async () =>
    (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [name])).rows.map((r) =>
      Number(r.pid),
    );
  for (let round = 0; round < rounds; round++) {
    const latencies: number[] = [];
    const pids = await backends();
    const server0 = pids.reduce((a, p) => a + cpuMsOrZero(p), 0);
    const self0 = process.cpuUsage();
    const until = performance.now() + seconds * 1000;
    const t0 = performance.now();
    const ended0 = endsDone;
    const endingRunners = Array.from({ length: ending ? ends : 0 }, async () => {
      while (performance.now() < until) {
        await new Promise((r) => setTimeout(r, Math.random() * 2 * endEveryMs));
        const id = endable.pop();
        if (id === undefined) return;
        await ending!.update("ending", id, { state: "succeeded", finishedAtMs: Date.now() });
        endsDone++;
      }
    });
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (performance.now() < until) {
          const k = i++;
          const sent = performance.now();
          await store.create({
            operations: [
              {
                name: "resizeServerGroup",
                description: {
                  credentials: "demo",
                  region: "eastus",
                  serverGroupName: `burst-${k % 1000}`,
                  capacity: { min: 0, max: 10, desired: 2 },
                },
              },
            ],
            scaleSets: [`demo/eastus/demo-rg/burst-${k % 1000}`],
          });
          latencies.push(performance.now() - sent);
          if (thinkMs > 0) await new Promise((r) => setTimeout(r, Math.random() * thinkMs));
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    await Promise.all(endingRunners);
    const pidsAfter = await backends();
    const server = pidsAfter.reduce((a, p) => a + cpuMsOrZero(p), 0) - server0;
    const self = process.cpuUsage(self0);
    const sorted = latencies.sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    console.log(
      `round ${round + 1}: ${(latencies.length / wall).toFixed(0)} creates/s, p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms; server CPU ${(server / latencies.length).toFixed(3)} ms, this process ${((self.user + self.system) / 1000 / latencies.length).toFixed(3)} ms per create${ending ? `; ${((endsDone - ended0) / wall).toFixed(0)} ends/s meanwhile` : ""} (load ${loadavg()[0].toFixed(1)})`,
    );
  }
  await store.close();
  await ending?.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
