// The overload soak: two replicas on PostgreSQL (one database, each replica's store link a faulty link of its own),
// submissions at a rate the replicas cannot keep up with (so the backlog limit is reached and most submissions are
// answered 429 BacklogFull, as designed) and many pollers, a fault every faultEveryS (replica A's store link cut for
// cutS, then replica B restarted, in turn), for durationS. Each replica's RSS is read from /proc every sampleEveryS
// and reported per minute; at the end, every task accepted (202) must be in the store once and no task in the store
// must lack its answer, and every 503 must come from the error catalogue with Retry-After.
//
// SOAK_SECONDS sets the duration (default 600); SOAK_HEAP_SNAPSHOTS=DIR starts the replicas with
// --heapsnapshot-signal=SIGUSR2 and signals replica A at 95 % of the run, once the load has run its course (snapshots in DIR, read them with
// bench/heap-owners.ts). SOAK_NODE_OPTIONS is the replicas' NODE_OPTIONS (e.g. --cpu-prof --cpu-prof-dir=DIR: B's
// profile of each of its lives but the last is written at its restart).
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { ChildService } from "../../testkit/child-service.ts";
import { freePort } from "../../testkit/child-service.ts";
import { faultyLink, type FaultyLink } from "../../testkit/faulty-link.ts";
import { loadAverage, resize, type Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";
import { call, rssMb, Tally, target, throughPort, type Answer } from "./load.ts";

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

type Size = ReturnType<typeof soakSizes>;

interface Late {
  sentAtS: number;
  replica: ReplicaName;
  kind: "submission" | "held read" | "read";
  outcome: string;
  status: number;
  ms: number;
}
type ReplicaName = "a" | "b";

/** What a soak run shares between its loops: the replicas, the clock, and everything counted. */
interface Soak {
  b: Bench;
  size: Size;
  links: FaultyLink[];
  envs: Record<ReplicaName, Record<string, string>>;
  replicas: Record<ReplicaName, ChildService>;
  names: string[];
  db: pg.Client;
  submissions: Tally;
  reads: Tally;
  all: Tally;
  accepted: string[];
  acceptedTwice: string[];
  seen: Set<string>;
  /** What each submission was answered (its status, a 503's code, or timedOut / refused), by clientRequestId. */
  answerOf: Map<string, string>;
  samples: Sample[];
  backlog: { atS: number; queued: number }[];
  faults: { atS: number; fault: string; tookS: number }[];
  inFlight: Set<Promise<unknown>>;
  /** Every request answered past the client's patience or never: when it was sent, where, what it was and got. */
  late: Late[];
  now: () => number;
  running: () => boolean;
  snapshotSignalled: boolean;
}

/** Two replicas on one database, each through a faulty link of its own, and the scale sets they resize. */
async function startSoak(b: Bench, size: Size): Promise<Soak> {
  const databaseUrl = await b.database();
  const links: FaultyLink[] = [];
  const snapshots = process.env.SOAK_HEAP_SNAPSHOTS;
  const env = async (name: ReplicaName) => {
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
      // As deploy/kubernetes/deployment.yaml runs it: a request held unread past 3 s is shed, not served late.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "3000",
      LOG_LEVEL: "warn",
      ...(process.env.SOAK_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS } : {}),
      ...(snapshots
        ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` }
        : ({} as Record<string, string>)),
    };
  };
  const envs = { a: await env("a"), b: await env("b") };
  const replicas: Record<ReplicaName, ChildService> = { a: await b.service(envs.a), b: await b.service(envs.b) };
  const names = Array.from({ length: size.scaleSets }, (_, i) => `soak-${i}`);
  for (const name of names) await b.scaleSet(name);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  return {
    ...{ b, size, links, envs, replicas, names, db, now, running: () => now() < size.durationS },
    ...{ submissions: new Tally(), reads: new Tally(), all: new Tally(), accepted: [], acceptedTwice: [] },
    ...{ seen: new Set(), answerOf: new Map(), samples: [], backlog: [], faults: [], inFlight: new Set(), late: [] },
    snapshotSignalled: false,
  };
}

/** One submission, its answer recorded by its clientRequestId. */
function submit(s: Soak, i: number): void {
  const name = s.names[i % s.names.length];
  // Each submission its own clientRequestId: the store says which submissions made a task, whatever they were
  // answered.
  const requestId = `soak-${i}`;
  const replica = i % 2 ? "b" : "a";
  const sentAtS = s.now();
  const p = call(
    s.replicas[replica].url,
    "POST",
    `/azure/ops/resizeServerGroup?clientRequestId=${requestId}`,
    resize(name, 1 + (i % 3)),
    s.size.patienceMs,
    [s.submissions, s.all],
  ).then((a) => {
    noteLate(s, a, { sentAtS, replica, kind: "submission" });
    s.answerOf.set(
      requestId,
      a.status === 503
        ? `503 ${(a.body as { error?: string } | undefined)?.error}`
        : a.status
          ? String(a.status)
          : a.outcome,
    );
    if (a.status === 202) {
      const id = (a.body as { id: string }).id;
      if (s.seen.has(id)) s.acceptedTwice.push(id);
      s.seen.add(id);
      s.accepted.push(id);
    }
  });
  s.inFlight.add(p);
  void p.finally(() => s.inFlight.delete(p));
}

/** Submissions: an open loop, submitPerS a second whatever the answers, alternately to A and B. */
async function submitLoop(s: Soak): Promise<void> {
  let i = 0;
  while (s.running()) {
    const due = Math.floor(s.now() * s.size.submitPerS) - i;
    for (let k = 0; k < due; k++, i++) submit(s, i);
    await sleep(100);
  }
}

/** A poller follows a recently accepted task: a third of them held with ?wait=3, the others once a second. */
async function poller(s: Soak, j: number): Promise<void> {
  const r = j % 2 ? "b" : "a";
  const held = j % 3 === 0;
  while (s.running()) {
    const id = s.accepted[s.accepted.length - 1 - Math.floor(Math.random() * Math.min(s.accepted.length, 500))];
    if (!id) {
      await sleep(100);
      continue;
    }
    const sentAtS = s.now();
    const a = await call(
      s.replicas[r].url,
      "GET",
      `/task/${id}${held ? "?wait=3" : ""}`,
      undefined,
      s.size.patienceMs,
      [s.reads, s.all],
    );
    noteLate(s, a, { sentAtS, replica: r, kind: held ? "held read" : "read" });
    if (!held || a.status !== 200) await sleep(1000);
  }
}

/** Records a request answered past the client's patience, or never. */
function noteLate(s: Soak, a: Answer, what: Pick<Late, "sentAtS" | "replica" | "kind">): void {
  if (a.outcome !== "timedOut" && a.ms <= s.size.patienceMs) return;
  s.late.push({
    ...what,
    sentAtS: Math.round(what.sentAtS * 10) / 10,
    outcome: a.outcome,
    status: a.status,
    ms: Math.round(a.ms),
  });
}

/** RSS of each replica (the process running now), and the backlog once a minute (every sample at smoke sizes). */
async function sampler(s: Soak): Promise<void> {
  let lastBacklogMinute = -1;
  while (s.running()) {
    for (const r of ["a", "b"] as const) {
      // Writing a heap snapshot takes memory of its own: A's RSS after one is not the load's.
      if (r === "a" && s.snapshotSignalled) continue;
      const mb = rssMb(s.replicas[r].child.pid);
      if (mb !== undefined) s.samples.push({ atS: s.now(), replica: r, rssMb: mb });
    }
    const minute = Math.floor(s.now() / 60);
    if (s.b.smoke || minute !== lastBacklogMinute) {
      lastBacklogMinute = minute;
      const q = await s.db.query<{ n: string }>("SELECT count(*) AS n FROM tasks WHERE state = 'queued'");
      s.backlog.push({ atS: Math.round(s.now()), queued: Number(q.rows[0].n) });
    }
    await sleep(s.size.sampleEveryS * 1000);
  }
}

/** The k-th fault: A's store link cut for cutS (even k), or B restarted (SIGTERM, as a rolling update does). */
async function fault(s: Soak, k: number): Promise<void> {
  const at = s.now();
  if (k % 2 === 0) {
    s.links[0].blackHole();
    await sleep(s.size.cutS * 1000);
    s.links[0].heal();
    s.faults.push({ atS: Math.round(at), fault: `replica A's store link black-holed for ${s.size.cutS} s`, tookS: 0 });
  } else {
    s.replicas.b.child.kill("SIGTERM");
    await s.replicas.b.exited;
    s.replicas.b = await s.b.child(s.envs.b);
    s.faults.push({ atS: Math.round(at), fault: "replica B restarted (SIGTERM)", tookS: 0 });
  }
  s.faults[s.faults.length - 1].tookS = Math.round((s.now() - at) * 10) / 10;
  s.b.log(`soak: ${s.now().toFixed(0)} s, ${s.faults[s.faults.length - 1].fault}`);
}

/** Faults every faultEveryS, in turn; a heap snapshot of A at 95 % of the run when SOAK_HEAP_SNAPSHOTS asks. */
async function faulter(s: Soak): Promise<void> {
  const snapshotAt = process.env.SOAK_HEAP_SNAPSHOTS ? [0.95].map((f) => f * s.size.durationS) : [];
  let k = 0;
  while (s.running()) {
    const nextFault = (k + 1) * s.size.faultEveryS;
    const wake = Math.min(nextFault, snapshotAt[0] ?? Infinity, s.size.durationS);
    await sleep(Math.max(0, wake - s.now()) * 1000);
    if (snapshotAt.length && s.now() >= snapshotAt[0]) {
      snapshotAt.shift();
      s.b.log(`soak: heap snapshot of replica A (pid ${s.replicas.a.child.pid}) at ${s.now().toFixed(0)} s`);
      s.snapshotSignalled = true;
      s.replicas.a.child.kill("SIGUSR2");
      continue;
    }
    if (!s.running() || s.now() < nextFault) continue;
    await fault(s, k);
    k++;
  }
}

/**
 * Nothing lost or duplicated: every accepted id once in the store; tasks in the store without an accepted answer
 * (created, then answered otherwise: a time-out, a 503 after the commit) are counted apart, by that answer; a client
 * that sends the same clientRequestId again finds such a task, one that does not makes another.
 */
async function storeCheck(s: Soak, warmIds: Set<string>) {
  const stored = await s.db.query<{ id: string; state: string; client_request_id: string | null }>(
    "SELECT id, state, client_request_id FROM tasks",
  );
  // The tasks created though their submission was not answered 202, by what it was answered.
  const createdAnswered: Record<string, number> = {};
  for (const r of stored.rows)
    if (r.client_request_id?.startsWith("soak-") && !s.seen.has(r.id)) {
      const answer = s.answerOf.get(r.client_request_id) ?? "no answer";
      createdAnswered[answer] = (createdAnswered[answer] ?? 0) + 1;
    }
  const inStore = new Map(stored.rows.filter((r) => !warmIds.has(r.id)).map((r) => [r.id, r.state]));
  const lost = s.accepted.filter((id) => !inStore.has(id)).length;
  const unanswered = [...inStore.keys()].filter((id) => !s.seen.has(id)).length;
  const states: Record<string, number> = {};
  for (const state of inStore.values()) states[state] = (states[state] ?? 0) + 1;
  return { createdAnswered, created: inStore.size, lost, unanswered, states };
}

/** RSS per minute (each replica's largest sample in that minute, from 1), A's growth over the second half, peaks. */
function rssSummary(s: Soak) {
  const minutes = Math.ceil(s.size.durationS / 60);
  const perMinute = Array.from({ length: minutes }, (_, m) => {
    const of = (r: ReplicaName) => {
      const xs = s.samples
        .filter((x) => x.replica === r && x.atS >= m * 60 && x.atS < (m + 1) * 60)
        .map((x) => x.rssMb);
      return xs.length ? Math.round(Math.max(...xs)) : null;
    };
    return {
      minute: m + 1,
      aMb: of("a"),
      bMb: of("b"),
      queued: s.backlog.find((x) => x.atS >= m * 60)?.queued ?? null,
    };
  });
  const aSeries = perMinute.map((p) => p.aMb).filter((x): x is number => x !== null);
  // A's growth over the second half of the run, in MB a minute: about 0 once RSS has levelled off.
  const half = aSeries.slice(Math.floor(aSeries.length / 2));
  const secondHalfGrowthMbPerMin =
    half.length > 1 ? Math.round(((half.at(-1)! - half[0]) / (half.length - 1)) * 10) / 10 : 0;
  const peak = (r: ReplicaName) =>
    Math.round(Math.max(0, ...s.samples.filter((x) => x.replica === r).map((x) => x.rssMb)));
  return { perMinute, aSeries, secondHalfGrowthMbPerMin, peakRssMb: { a: peak("a"), b: peak("b") } };
}

/** The run's loops, from start to end, then every submission in flight answered. */
async function runLoad(s: Soak): Promise<void> {
  const progress = setInterval(() => {
    const last = (r: ReplicaName) => s.samples.findLast((x) => x.replica === r)?.rssMb.toFixed(0);
    s.b.log(
      `soak: ${s.now().toFixed(0)} s, RSS A ${last("a")} MB, B ${last("b")} MB, ${s.accepted.length} accepted, backlog ${s.backlog.at(-1)?.queued}, ${s.all.total} requests (${JSON.stringify(s.all.outcomes)})`,
    );
  }, 30_000);
  const pollers = Array.from({ length: s.size.pollers }, (_, j) => poller(s, j));
  await Promise.all([submitLoop(s), sampler(s), faulter(s), ...pollers]);
  clearInterval(progress);
  await Promise.all(s.inFlight);
}

export async function measureSoak(b: Bench) {
  const size = soakSizes(b.smoke);
  const s = await startSoak(b, size);
  const warmIds = new Set((await s.db.query<{ id: string }>("SELECT id FROM tasks")).rows.map((r) => r.id));
  await runLoad(s);
  const load = loadAverage();
  const check = await storeCheck(s, warmIds);
  await s.db.end();
  for (const r of ["a", "b"] as const) await b.stop(s.replicas[r]);
  for (const l of s.links) await l.close();
  const rss = rssSummary(s);
  const { lost, unanswered, createdAnswered } = check;
  const { all, submissions } = s;
  const soak = {
    takenAt: new Date().toISOString(),
    loadAverage: load,
    settings: { ...size, replicas: 2, store: "postgres", leaseMs: 6000 },
    faults: s.faults,
    rssPerMinute: rss.perMinute,
    peakRssMb: rss.peakRssMb,
    secondHalfGrowthMbPerMin: rss.secondHalfGrowthMbPerMin,
    accepted: s.accepted.length,
    created: check.created,
    lost,
    acceptedTwice: s.acceptedTwice.length,
    createdWithoutAnswer: unanswered,
    createdWithoutAnswerBy: createdAnswered,
    taskStates: check.states,
    submissions: submissions.summary(),
    reads: s.reads.summary(),
    pastPatienceBy: {
      submissions: submissions.pastMs(size.patienceMs),
      reads: s.reads.pastMs(size.patienceMs),
    },
    late: lateSummary(s),
  };
  const growth = rss.secondHalfGrowthMbPerMin;
  b.log(
    `soak: A's RSS per minute ${rss.aSeries.join(", ")} MB (second half ${growth} MB/min); ${soak.accepted} accepted, ${lost} lost, ${soak.acceptedTwice} twice; 503s: ${all.outcomes.unavailable} from the catalogue, ${all.outcomes.unavailableBare} bare`,
  );
  const rows: Row[] = [
    {
      figure: `soak: ${Math.round(size.durationS / 60)} min of overload (${size.submitPerS} submissions/s, ${size.pollers} pollers, a fault every ${size.faultEveryS} s), 2 replicas on PostgreSQL: RSS growth over the second half, MB a minute`,
      measured: growth,
      target: "≤ 2, 0 lost, 0 bare 503",
      met: growth <= 2 && lost === 0 && soak.acceptedTwice === 0 && all.outcomes.unavailableBare === 0,
      detail: `A's RSS per minute ${rss.aSeries.join(", ")} MB; ${soak.accepted} accepted, ${lost} lost, ${soak.acceptedTwice} answered twice, ${unanswered} created though not answered 202 (${JSON.stringify(createdAnswered)}); ${submissions.statuses[429] ?? 0} × 429; 503: ${all.outcomes.unavailable} with Retry-After from the catalogue, ${all.outcomes.unavailableBare} without; ${all.outcomes.timedOut} timed out`,
    },
  ];
  rows.push(pastPatienceRow(s));
  return { rows, results: { soak: { ...soak, pastPatience: rows.at(-1)!.measured } } } satisfies Figure;
}

/** The requests answered past the client's patience, counted by kind, replica and outcome, and the first 50 of them. */
function lateSummary(s: Soak) {
  const by: Record<string, number> = {};
  for (const l of s.late) {
    const key = `${l.kind} on ${l.replica}: ${l.outcome}${l.status ? ` ${l.status}` : ""}`;
    by[key] = (by[key] ?? 0) + 1;
  }
  return { count: s.late.length, by, first: s.late.slice(0, 50) };
}

/** The share of requests answered past the client's patience (5 s) or never: what shedding in time must keep at 0. */
function pastPatienceRow(s: Soak): Row {
  const { all, size } = s;
  const past = all.pastMs(size.patienceMs);
  return {
    figure: `soak: requests answered past the client's ${size.patienceMs / 1000} s patience (or never), share of all`,
    measured: all.total === 0 ? 0 : Number((past / all.total).toFixed(6)),
    target: "0",
    met: past === 0,
    detail: `${past} of ${all.total} requests (${all.outcomes.timedOut} timed out): ${s.submissions.pastMs(size.patienceMs)} of ${s.submissions.total} submissions, ${s.reads.pastMs(size.patienceMs)} of ${s.reads.total} reads; shedding by event-loop delay at 3000 ms as deployed`,
  };
}
