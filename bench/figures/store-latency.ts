// A slow store: one replica on PostgreSQL behind a faulty link that holds every packet 300-500 ms, either way, for
// stallS, under a steady load of submissions and reads at a client's patience of 5 s. What a client sees: the p99
// of the answers, and the share answered 503 (with Retry-After, from the error catalogue) against the share that
// timed out (the service slow, not refusing: a client cannot tell slow from dead). Also the same load on the healthy
// link just before, for comparison. The service runs with its default bounds: each request's store work ends by
// TASK_STORE_REQUEST_DEADLINE_MS (3 s) from its arrival, so every answer should come by then; a submission whose create
// was sent and not answered by then is 503 TaskOutcomeUnknown (the task may exist: repeat with its clientRequestId).
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { faultyLink } from "../../testkit/faulty-link.ts";
import { loadAverage, resize, type Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";
import { call, Tally, target, throughPort } from "./load.ts";

function sizes(smoke: boolean) {
  return smoke
    ? { healthyS: 1, stallS: 2, submitPerS: 10, readers: 4, scaleSets: 2, patienceMs: 5000, delayMs: [300, 500] }
    : { healthyS: 10, stallS: 30, submitPerS: 10, readers: 20, scaleSets: 10, patienceMs: 5000, delayMs: [300, 500] };
}

/** The clientRequestIds of the submissions answered 503, by the answer's code. */
type Refused = Record<string, string[]>;

/**
 * Submissions at submitPerS (an open loop), each with a clientRequestId of its own as Orca sends, and `readers`
 * callers reading a task each in turn, for seconds.
 */
async function load(
  b: Bench,
  url: string,
  size: ReturnType<typeof sizes>,
  seconds: number,
  ids: string[],
  phase: string,
  refused: Refused,
): Promise<{ submissions: Tally; reads: Tally; all: Tally }> {
  const submissions = new Tally();
  const reads = new Tally();
  const all = new Tally();
  const t0 = performance.now();
  const elapsed = () => (performance.now() - t0) / 1000;
  const pending: Promise<unknown>[] = [];
  const submit = (async () => {
    let i = 0;
    while (elapsed() < seconds) {
      for (; i < Math.floor(elapsed() * size.submitPerS); i++) {
        // Its own, not the loop's: the answer comes after the loop has moved on.
        const clientRequestId = `${phase}-${i}`;
        pending.push(
          call(
            url,
            "POST",
            `/azure/ops/resizeServerGroup?clientRequestId=${clientRequestId}`,
            resize(`slow-${i % size.scaleSets}`, 1 + (i % 3)),
            size.patienceMs,
            [submissions, all],
          ).then((a) => {
            if (a.status === 202) ids.push((a.body as { id: string }).id);
            const error = (a.body as { error?: string } | undefined)?.error;
            if (a.status === 503 && error) (refused[error] ??= []).push(clientRequestId);
          }),
        );
      }
      await sleep(50);
    }
  })();
  const readers = Array.from({ length: size.readers }, async () => {
    while (elapsed() < seconds) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      await call(url, "GET", `/task/${id}`, undefined, size.patienceMs, [reads, all]);
      await sleep(200);
    }
  });
  await Promise.all([submit, ...readers]);
  await Promise.all(pending);
  return { submissions, reads, all };
}

export async function measureStoreLatency(b: Bench) {
  const size = sizes(b.smoke);
  const databaseUrl = await b.database();
  const link = await faultyLink(target(databaseUrl));
  const s = await b.service({
    TASK_STORE: "postgres",
    DATABASE_URL: throughPort(databaseUrl, link.port),
    REPLICA_ID: "store-latency",
    LOG_LEVEL: "warn",
  });
  for (let i = 0; i < size.scaleSets; i++) await b.scaleSet(`slow-${i}`);
  const ids = [await b.submit(s, "slow-0", 2)];
  const refused: Refused = {};
  const healthy = await load(b, s.url, size, size.healthyS, ids, "healthy", refused);
  link.delay(size.delayMs[0], size.delayMs[1]);
  const slow = await load(b, s.url, size, size.stallS, ids, "slow", refused);
  link.delay(0, 0);
  const load1 = loadAverage();
  await b.stop(s);
  await link.close();
  const createdAnyway = await createdOf(databaseUrl, refused);
  const share = (t: Tally, n: number) => (t.total ? n / t.total : 0);
  const view = (t: Tally) => ({
    ...t.summary(),
    unavailableShare: Number(share(t, t.outcomes.unavailable).toFixed(3)),
    timedOutShare: Number(share(t, t.outcomes.timedOut).toFixed(3)),
  });
  const storeLatency = {
    takenAt: new Date().toISOString(),
    loadAverage: load1,
    settings: size,
    healthy: { submissions: view(healthy.submissions), reads: view(healthy.reads), all: view(healthy.all) },
    slow: { submissions: view(slow.submissions), reads: view(slow.reads), all: view(slow.all) },
    /** Per 503 code: the submissions answered so, and how many of them have a task all the same. */
    createdThoughRefused: createdAnyway,
  };
  const all = storeLatency.slow.all;
  const codes = Object.entries(all.unavailableCodes)
    .map(([code, n]) => `${n} ${code}`)
    .join(", ");
  b.log(
    `store latency ${size.delayMs.join("-")} ms: p99 ${all.p99Ms} ms (healthy ${storeLatency.healthy.all.p99Ms} ms), ${all.unavailable} × 503 with Retry-After, ${all.unavailableBare} bare, ${all.timedOut} timed out of ${all.requests}`,
  );
  const rows: Row[] = [
    {
      figure: `store answering in ${size.delayMs.join("-")} ms for ${size.stallS} s, 1 replica on PostgreSQL: requests timed out at a ${size.patienceMs / 1000} s patience`,
      measured: all.timedOutShare,
      target: "0, every 503 with Retry-After",
      met: all.timedOut === 0 && all.unavailableBare === 0 && (createdAnyway.TaskStoreUnavailable?.created ?? 0) === 0,
      detail: `${all.requests} requests (${size.submitPerS} submissions/s, ${size.readers} readers): p99 ${all.p99Ms} ms, slowest ${all.maxMs} ms against a 3 s request deadline (healthy link: p99 ${storeLatency.healthy.all.p99Ms} ms); ${(all.unavailableShare * 100).toFixed(1)} % answered 503 with Retry-After (${codes || "none"}), ${all.unavailableBare} without, ${(all.timedOutShare * 100).toFixed(1)} % timed out; created all the same: ${
        Object.entries(createdAnyway)
          .map(([code, c]) => `${c.created} of ${c.answered} ${code}`)
          .join(", ") || "none answered 503"
      }`,
    },
  ];
  return { rows, results: { storeLatency } } satisfies Figure;
}

/**
 * How many of the submissions answered 503 have a task all the same, by code: none may for TaskStoreUnavailable
 * ("nothing was done"); some may for TaskOutcomeUnknown (its create was sent; the same clientRequestId finds it). Read
 * once the service is gone and no statement of it is still running in the database (a held one commits or not by
 * TASK_STORE_STATEMENT_TIMEOUT_MS).
 */
async function createdOf(
  databaseUrl: string,
  refused: Refused,
): Promise<Record<string, { answered: number; created: number }>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const name = new URL(databaseUrl).pathname.slice(1);
    for (let i = 0; i < 600; i++) {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'vmss-ops' AND state <> 'idle'",
        [name],
      );
      if (rows[0].n === 0) break;
      await sleep(100);
    }
    const out: Record<string, { answered: number; created: number }> = {};
    for (const [code, ids] of Object.entries(refused)) {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM tasks WHERE client_request_id = ANY($1::text[])",
        [ids],
      );
      out[code] = { answered: ids.length, created: rows[0].n };
    }
    return out;
  } finally {
    await db.end();
  }
}
