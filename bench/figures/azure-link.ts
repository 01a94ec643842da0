// One replica's link to Azure black-holed: two replicas on PostgreSQL (one database), replica A calling Azure through a
// CONNECT proxy that the run cuts (connections accepted, nothing answered), replica B directly. Submissions go to each
// in turn at a steady rate; A's link is black-holed for cutS in the middle of the run. A replica that cannot reach
// Azure stops claiming and hands its tasks back (src/azure/arm-link.ts), so a task waits about its call deadline and
// the hand-back bound, never the outage's length. Each task's latency is its time from submission to end on the
// database's clock (created_at_ms to finished_at_ms), read from the store once every task has ended.
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { connectProxy } from "../../testkit/connect-proxy.ts";
import type { ChildService } from "../../testkit/child-service.ts";
import { loadAverage, resize, type Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";
import { percentile } from "./load.ts";

function linkSizes(smoke: boolean) {
  return smoke
    ? { durationS: 8, submitPerS: 4, scaleSets: 4, cutFromS: 2, cutS: 3, leaseMs: 6000, readMs: 1000, releaseMs: 1000 }
    : // The defaults of a deployment: 30 s leases, 10 s read deadlines, 10 s before handing tasks back.
      {
        durationS: 100,
        submitPerS: 5,
        scaleSets: 20,
        cutFromS: 20,
        cutS: 60,
        leaseMs: 30_000,
        readMs: 10_000,
        releaseMs: 10_000,
      };
}

/** The target: a task waits at most a lease and one retry (a read's deadline), whatever the outage's length. */
function boundMs(size: ReturnType<typeof linkSizes>): number {
  return size.leaseMs + size.readMs;
}

/** Submits round-robin to A and B at submitPerS until durationS, cutting A's link from cutFromS for cutS. */
async function drive(
  b: Bench,
  size: ReturnType<typeof linkSizes>,
  replicas: ChildService[],
  cut: { blackHole(): void; heal(): void },
): Promise<{ submitted: number; refused: number }> {
  const names = Array.from({ length: size.scaleSets }, (_, i) => `link-${i}`);
  for (const name of names) await b.scaleSet(name);
  const t0 = performance.now();
  const atS = () => (performance.now() - t0) / 1000;
  let submitted = 0;
  let refused = 0;
  let phase: "before" | "cut" | "healed" = "before";
  for (let i = 0; atS() < size.durationS; i++) {
    if (phase === "before" && atS() >= size.cutFromS) {
      cut.blackHole();
      phase = "cut";
      b.log(`azure link: replica A's link to Azure black-holed at ${atS().toFixed(1)} s`);
    } else if (phase === "cut" && atS() >= size.cutFromS + size.cutS) {
      cut.heal();
      phase = "healed";
      b.log(`azure link: healed at ${atS().toFixed(1)} s`);
    }
    const via = replicas[i % replicas.length];
    const name = names[i % names.length];
    const res = await via.api(
      "POST",
      `/azure/ops/resizeServerGroup?clientRequestId=link-${i}`,
      resize(name, 1 + (i % 3)),
    );
    if (res.status === 202) submitted++;
    else refused++;
    const next = t0 + ((i + 1) * 1000) / size.submitPerS;
    await sleep(Math.max(0, next - performance.now()));
  }
  if (phase === "cut") cut.heal();
  return { submitted, refused };
}

/** Every task of the run ended (bounded), then each one's latency on the database's clock. */
async function latencies(
  db: pg.Client,
  boundS: number,
): Promise<{ ms: number[]; states: Record<string, number>; failures: unknown[] }> {
  const deadline = performance.now() + boundS * 1000;
  for (;;) {
    const open = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM tasks WHERE client_request_id LIKE 'link-%' AND finished_at_ms IS NULL",
    );
    if (Number(open.rows[0].n) === 0 || performance.now() > deadline) break;
    await sleep(500);
  }
  const { rows } = await db.query<{ state: string; ms: string | null; failure: unknown }>(
    "SELECT state, finished_at_ms - created_at_ms AS ms, failure FROM tasks WHERE client_request_id LIKE 'link-%'",
  );
  const states: Record<string, number> = {};
  for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
  const failures = rows.filter((r) => r.state !== "succeeded").map((r) => r.failure ?? r.state);
  return { ms: rows.filter((r) => r.ms !== null).map((r) => Number(r.ms)), states, failures };
}

export async function measureAzureLink(b: Bench): Promise<Figure> {
  const size = linkSizes(b.smoke);
  const databaseUrl = await b.database();
  const proxy = await connectProxy();
  const common = {
    TASK_STORE: "postgres",
    DATABASE_URL: databaseUrl,
    TASK_LEASE_MS: String(size.leaseMs),
    ARM_READ_TIMEOUT_MS: String(size.readMs),
    ARM_LINK_RELEASE_AFTER_MS: String(size.releaseMs),
    LOG_LEVEL: "warn",
    ...b.fastPolls,
  };
  const a = await b.service({
    ...common,
    REPLICA_ID: "link-a",
    HTTPS_PROXY: proxy.url,
    // Through a proxy the SDK drops the client's own CA (core-rest-pipeline's proxy policy): trusted process-wide.
    NODE_EXTRA_CA_CERTS: b.caFile,
  });
  const other = await b.service({ ...common, REPLICA_ID: "link-b" });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const sent = await drive(b, size, [a, other], proxy);
    const { ms, states, failures } = await latencies(db, size.durationS + boundMs(size) / 1000 + 60);
    const sorted = ms.sort((x, y) => x - y);
    const p50 = sorted.length ? percentile(sorted, 0.5) : NaN;
    const p99 = sorted.length ? percentile(sorted, 0.99) : NaN;
    const azureLink = {
      takenAt: new Date().toISOString(),
      loadAverage: loadAverage(),
      settings: { ...size, replicas: 2, store: "postgres" },
      ...sent,
      states,
      failures: failures.slice(0, 5),
      p50Ms: Math.round(p50),
      p99Ms: Math.round(p99),
      maxMs: Math.round(sorted.at(-1) ?? NaN),
      boundMs: boundMs(size),
    };
    const ended = sorted.length === sent.submitted;
    const rows: Row[] = [
      {
        figure: `azure link: one of 2 replicas on PostgreSQL cut from Azure for ${size.cutS} s (${size.submitPerS} submissions/s), task p99 in s`,
        measured: Number((p99 / 1000).toFixed(1)),
        target: `≤ ${boundMs(size) / 1000} (a lease and a read's deadline), every task ended`,
        met: ended && p99 <= boundMs(size) && (states.succeeded ?? 0) === sent.submitted,
        detail: `${sent.submitted} tasks (${JSON.stringify(states)}), p50 ${(p50 / 1000).toFixed(1)} s, slowest ${(azureLink.maxMs / 1000).toFixed(1)} s; ${sent.refused} submissions refused`,
      },
    ];
    return { rows, results: { azureLink } };
  } finally {
    await db.end();
    await b.stop(a);
    await b.stop(other);
    await proxy.close();
  }
}
