// The overload soak: two replicas on PostgreSQL (one database, each replica's store link a faulty link of its own),
// submissions at a rate the replicas cannot keep up with (so the backlog limit is reached and most submissions are
// answered 429 BacklogFull, as designed) and many pollers, a fault every faultEveryS (replica A's store link cut for
// cutS, then replica B restarted, in turn), for durationS. Each replica's RSS is read from /proc every sampleEveryS
// and reported per minute; at the end, every task accepted (202) must be in the store once and no task in the store
// must lack its answer, and every 503 must come from the error catalogue with Retry-After.
//
// SOAK_SECONDS sets the duration (default 600); SOAK_HEAP_SNAPSHOTS=DIR starts the replicas with
// --heapsnapshot-signal=SIGUSR2 and signals replica A at 95 % of the run, once the load has run its course (snapshots in DIR, read them with
// bench/heap-owners.ts).
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { ChildService } from "../../testkit/child-service.ts";
import { freePort } from "../../testkit/child-service.ts";
import { faultyLink, type FaultyLink } from "../../testkit/faulty-link.ts";
import { loadAverage, resize, type Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";
import { call, rssMb, Tally, target, throughPort } from "./load.ts";

function soakSizes(smoke: boolean) {
  return smoke
    ? {
        durationS: 5,
        submitPerS: 40,
        pollers: 12,
        scaleSets: 3,
        faultEveryS: 1.5,
        cutS: 0.5,
        sampleEveryS: 0.25,
        backlogLimit: 15,
        patienceMs: 5000,
      }
    : {
        durationS: Number(process.env.SOAK_SECONDS ?? 600),
        submitPerS: 90,
        pollers: 600,
        scaleSets: 20,
        faultEveryS: 90,
        cutS: 5,
        sampleEveryS: 5,
        // The default TASK_BACKLOG_LIMIT.
        backlogLimit: 10_000,
        patienceMs: 5000,
      };
}

interface Sample {
  atS: number;
  replica: "a" | "b";
  rssMb: number;
}

export async function measureSoak(b: Bench) {
  const size = soakSizes(b.smoke);
  const databaseUrl = await b.database();
  const links: FaultyLink[] = [];
  const snapshots = process.env.SOAK_HEAP_SNAPSHOTS;
  const env = async (name: "a" | "b") => {
    const link = await faultyLink(target(databaseUrl));
    links.push(link);
    return {
      TASK_STORE: "postgres",
      DATABASE_URL: throughPort(databaseUrl, link.port),
      REPLICA_ID: `soak-${name}`,
      PORT: String(await freePort()),
      TASK_LEASE_MS: "6000",
      TASK_CLAIM_INTERVAL_MS: "1000",
      TASK_BACKLOG_LIMIT: String(size.backlogLimit),
      LOG_LEVEL: "warn",
      ...(snapshots
        ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` }
        : ({} as Record<string, string>)),
    };
  };
  const envs = { a: await env("a"), b: await env("b") };
  const replicas: Record<"a" | "b", ChildService> = {
    a: await b.service(envs.a),
    b: await b.service(envs.b),
  };
  const names = Array.from({ length: size.scaleSets }, (_, i) => `soak-${i}`);
  for (const name of names) await b.scaleSet(name);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const warmIds = new Set((await db.query<{ id: string }>("SELECT id FROM tasks")).rows.map((r) => r.id));

  const submissions = new Tally();
  const reads = new Tally();
  const all = new Tally();
  const accepted: string[] = [];
  const acceptedTwice: string[] = [];
  const seen = new Set<string>();
  /** What each submission was answered (its status, a 503's code, or timedOut / refused), by clientRequestId. */
  const answerOf = new Map<string, string>();
  const samples: Sample[] = [];
  const backlog: { atS: number; queued: number }[] = [];
  const faults: { atS: number; fault: string; tookS: number }[] = [];
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  const endAt = size.durationS;
  const running = () => now() < endAt;
  const url = (r: "a" | "b") => replicas[r].url;

  // Submissions: an open loop, submitPerS a second whatever the answers, alternately to A and B.
  const inFlight = new Set<Promise<unknown>>();
  const submitLoop = (async () => {
    let i = 0;
    const tickMs = 100;
    while (running()) {
      const due = Math.floor((now() * size.submitPerS) / 1) - i;
      for (let k = 0; k < due; k++, i++) {
        const name = names[i % names.length];
        // Each submission its own clientRequestId: the store says which submissions made a task, whatever they were
        // answered.
        const requestId = `soak-${i}`;
        const p = call(
          url(i % 2 ? "b" : "a"),
          "POST",
          `/azure/ops/resizeServerGroup?clientRequestId=${requestId}`,
          resize(name, 1 + (i % 3)),
          size.patienceMs,
          [submissions, all],
        ).then((a) => {
          answerOf.set(
            requestId,
            a.status === 503
              ? `503 ${(a.body as { error?: string } | undefined)?.error}`
              : a.status
                ? String(a.status)
                : a.outcome,
          );
          if (a.status === 202) {
            const id = (a.body as { id: string }).id;
            if (seen.has(id)) acceptedTwice.push(id);
            seen.add(id);
            accepted.push(id);
          }
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await sleep(tickMs);
    }
  })();

  // Pollers: each follows a recently accepted task, a third of them held with ?wait=3, the others once a second.
  const pollers = Array.from({ length: size.pollers }, async (_, j) => {
    const r = j % 2 ? "b" : "a";
    const held = j % 3 === 0;
    while (running()) {
      const id = accepted[accepted.length - 1 - Math.floor(Math.random() * Math.min(accepted.length, 500))];
      if (!id) {
        await sleep(100);
        continue;
      }
      const a = await call(url(r), "GET", `/task/${id}${held ? "?wait=3" : ""}`, undefined, size.patienceMs, [
        reads,
        all,
      ]);
      if (!held || a.status !== 200) await sleep(1000);
    }
  });

  let snapshotSignalled = false;
  // RSS of each replica (the process running now), and the backlog once a minute (every sample at smoke sizes).
  const sampler = (async () => {
    let lastBacklogMinute = -1;
    while (running()) {
      for (const r of ["a", "b"] as const) {
        // Writing a heap snapshot takes memory of its own: A's RSS after one is not the load's.
        if (r === "a" && snapshotSignalled) continue;
        const mb = rssMb(replicas[r].child.pid);
        if (mb !== undefined) samples.push({ atS: now(), replica: r, rssMb: mb });
      }
      const minute = Math.floor(now() / 60);
      if (b.smoke || minute !== lastBacklogMinute) {
        lastBacklogMinute = minute;
        const q = await db.query<{ n: string }>("SELECT count(*) AS n FROM tasks WHERE state = 'queued'");
        backlog.push({ atS: Math.round(now()), queued: Number(q.rows[0].n) });
      }
      await sleep(size.sampleEveryS * 1000);
    }
  })();

  // Faults: A's store link cut for cutS, then B restarted (SIGTERM, as a rolling update does), in turn.
  const snapshotAt = snapshots ? [0.95].map((f) => f * size.durationS) : [];
  const faulter = (async () => {
    let k = 0;
    while (running()) {
      const nextFault = (k + 1) * size.faultEveryS;
      const wake = Math.min(nextFault, snapshotAt[0] ?? Infinity, endAt);
      await sleep(Math.max(0, wake - now()) * 1000);
      if (snapshotAt.length && now() >= snapshotAt[0]) {
        snapshotAt.shift();
        b.log(`soak: heap snapshot of replica A (pid ${replicas.a.child.pid}) at ${now().toFixed(0)} s`);
        snapshotSignalled = true;
        replicas.a.child.kill("SIGUSR2");
        continue;
      }
      if (!running() || now() < nextFault) continue;
      const at = now();
      if (k % 2 === 0) {
        links[0].blackHole();
        await sleep(size.cutS * 1000);
        links[0].heal();
        faults.push({ atS: Math.round(at), fault: `replica A's store link black-holed for ${size.cutS} s`, tookS: 0 });
      } else {
        replicas.b.child.kill("SIGTERM");
        await replicas.b.exited;
        replicas.b = await b.child(envs.b);
        faults.push({ atS: Math.round(at), fault: "replica B restarted (SIGTERM)", tookS: 0 });
      }
      faults[faults.length - 1].tookS = Math.round((now() - at) * 10) / 10;
      b.log(`soak: ${now().toFixed(0)} s, ${faults[faults.length - 1].fault}`);
      k++;
    }
  })();

  const progress = setInterval(() => {
    const last = (r: "a" | "b") => samples.findLast((s) => s.replica === r)?.rssMb.toFixed(0);
    b.log(
      `soak: ${now().toFixed(0)} s, RSS A ${last("a")} MB, B ${last("b")} MB, ${accepted.length} accepted, backlog ${backlog.at(-1)?.queued}, ${all.total} requests (${JSON.stringify(all.outcomes)})`,
    );
  }, 30_000);
  await Promise.all([submitLoop, sampler, faulter, ...pollers]);
  clearInterval(progress);
  await Promise.all(inFlight);
  const load = loadAverage();

  // Nothing lost or duplicated: every accepted id once in the store; tasks in the store without an accepted answer
  // (created, then answered otherwise: a time-out, a 503 after the commit) are counted apart, by that answer; a client
  // that sends the same clientRequestId again finds such a task, one that does not makes another.
  const stored = await db.query<{ id: string; state: string; client_request_id: string | null }>(
    "SELECT id, state, client_request_id FROM tasks",
  );
  // The tasks created though their submission was not answered 202, by what it was answered.
  const createdAnswered: Record<string, number> = {};
  for (const r of stored.rows)
    if (r.client_request_id?.startsWith("soak-") && !seen.has(r.id)) {
      const answer = answerOf.get(r.client_request_id) ?? "no answer";
      createdAnswered[answer] = (createdAnswered[answer] ?? 0) + 1;
    }
  const inStore = new Map(stored.rows.filter((r) => !warmIds.has(r.id)).map((r) => [r.id, r.state]));
  const lost = accepted.filter((id) => !inStore.has(id)).length;
  const unanswered = [...inStore.keys()].filter((id) => !seen.has(id)).length;
  const states: Record<string, number> = {};
  for (const s of inStore.values()) states[s] = (states[s] ?? 0) + 1;
  await db.end();
  for (const r of ["a", "b"] as const) await b.stop(replicas[r]);
  for (const l of links) await l.close();

  // RSS per minute: each replica's largest sample in that minute (the minute of the run, from 1).
  const minutes = Math.ceil(size.durationS / 60);
  const perMinute = Array.from({ length: minutes }, (_, m) => {
    const of = (r: "a" | "b") => {
      const xs = samples.filter((s) => s.replica === r && s.atS >= m * 60 && s.atS < (m + 1) * 60).map((s) => s.rssMb);
      return xs.length ? Math.round(Math.max(...xs)) : null;
    };
    return { minute: m + 1, aMb: of("a"), bMb: of("b"), queued: backlog.find((x) => x.atS >= m * 60)?.queued ?? null };
  });
  const aSeries = perMinute.map((p) => p.aMb).filter((x): x is number => x !== null);
  // A's growth over the second half of the run, in MB a minute: about 0 once RSS has levelled off.
  const half = aSeries.slice(Math.floor(aSeries.length / 2));
  const secondHalfGrowthMbPerMin =
    half.length > 1 ? Math.round(((half.at(-1)! - half[0]) / (half.length - 1)) * 10) / 10 : 0;
  const peakAMb = Math.round(Math.max(0, ...samples.filter((s) => s.replica === "a").map((s) => s.rssMb)));
  const soak = {
    takenAt: new Date().toISOString(),
    loadAverage: load,
    settings: { ...size, replicas: 2, store: "postgres", leaseMs: 6000 },
    faults,
    rssPerMinute: perMinute,
    peakRssMb: {
      a: peakAMb,
      b: Math.round(Math.max(0, ...samples.filter((s) => s.replica === "b").map((s) => s.rssMb))),
    },
    secondHalfGrowthMbPerMin,
    accepted: accepted.length,
    created: inStore.size,
    lost,
    acceptedTwice: acceptedTwice.length,
    createdWithoutAnswer: unanswered,
    createdWithoutAnswerBy: createdAnswered,
    taskStates: states,
    submissions: submissions.summary(),
    reads: reads.summary(),
  };
  b.log(
    `soak: A's RSS per minute ${aSeries.join(", ")} MB (second half ${secondHalfGrowthMbPerMin} MB/min); ${soak.accepted} accepted, ${lost} lost, ${soak.acceptedTwice} twice; 503s: ${all.outcomes.unavailable} from the catalogue, ${all.outcomes.unavailableBare} bare`,
  );
  const rows: Row[] = [
    {
      figure: `soak: ${Math.round(size.durationS / 60)} min of overload (${size.submitPerS} submissions/s, ${size.pollers} pollers, a fault every ${size.faultEveryS} s), 2 replicas on PostgreSQL: RSS growth over the second half, MB a minute`,
      measured: secondHalfGrowthMbPerMin,
      target: "≤ 2, 0 lost, 0 bare 503",
      met:
        secondHalfGrowthMbPerMin <= 2 && lost === 0 && soak.acceptedTwice === 0 && all.outcomes.unavailableBare === 0,
      detail: `A's RSS per minute ${aSeries.join(", ")} MB; ${soak.accepted} accepted, ${lost} lost, ${soak.acceptedTwice} answered twice, ${unanswered} created though not answered 202 (${JSON.stringify(createdAnswered)}); ${submissions.statuses[429] ?? 0} × 429; 503: ${all.outcomes.unavailable} with Retry-After from the catalogue, ${all.outcomes.unavailableBare} without; ${all.outcomes.timedOut} timed out`,
    },
  ];
  return { rows, results: { soak } } satisfies Figure;
}
