// K resizes of one scale set, in order: the makespan against K·D on 1 replica (SQLite) and on MAKESPAN_REPLICAS
// replicas sharing PostgreSQL; the plain SDK script sending the same K at once; the ARM calls of one uncontended
// resize. Writes the chart of the makespans too (writeMakespanChart).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChildService } from "../../testkit/child-service.ts";
import { makespanChart } from "../chart.ts";
import type { Bench, PlainSdkBurst } from "../context.ts";
import type { Figure, Row } from "../table.ts";

/** Replicas on one PostgreSQL database for the makespan of K resizes submitted round-robin. */
const MAKESPAN_REPLICAS = 3;

/** K resizes of one scale set, submitted round-robin to `replicas`, alternating between 2 and 1 VMs. */
async function makespan(b: Bench, label: string, replicas: ChildService[], k: number) {
  const name = `mk-${label}-${k}`;
  await b.scaleSet(name);
  await b.control.clearCalls();
  const wanted = Array.from({ length: k }, (_, i) => (i % 2 === 0 ? 2 : 1));
  const t0 = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < k; i++) ids.push(await b.submit(replicas[i % replicas.length], name, wanted[i]));
  const tasks = await b.waitAll(replicas[0], ids, 5);
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const calls = (await b.control.calls()).filter((c) => c.path.toLowerCase().endsWith(`/${name}`));
  const writes = calls.filter((c) => c.method === "PATCH" || c.method === "PUT");
  const capacity = ((await b.control.getScaleSet("demo-rg", name)).vmss as { sku: { capacity: number } }).sku.capacity;
  return {
    k,
    makespanMs: end - t0,
    boundMs: k * b.sizes.D,
    ratio: (end - t0) / (k * b.sizes.D),
    writes: writes.length,
    refused: calls.filter((c) => c.status === 409 || c.status === 412).length,
    failedTasks: tasks.filter((t) => t.status.failed).length,
    lastSubmittedWins: capacity === wanted.at(-1),
  };
}

type Makespan = Awaited<ReturnType<typeof makespan>>;

/** The makespans on `one` and on MAKESPAN_REPLICAS replicas (started here, stopped at the end). */
async function makespans(b: Bench, one: ChildService) {
  const databaseUrl = await b.database();
  // Started side by side (start-up is what takes longest at smoke sizes).
  const replicas = await Promise.all(
    Array.from({ length: MAKESPAN_REPLICAS }, (_, i) =>
      b.service({ TASK_STORE: "postgres", DATABASE_URL: databaseUrl, REPLICA_ID: `bench-${i}`, ...b.fastPolls }),
    ),
  );
  const oneReplica: Makespan[] = [];
  for (const k of b.sizes.ks) oneReplica.push(await makespan(b, "one", [one], k));
  b.log(`makespan, 1 replica: ${oneReplica.map((m) => `K=${m.k} ${m.ratio.toFixed(2)}`).join(", ")}`);
  const replicated: Makespan[] = [];
  for (const k of b.sizes.ks) replicated.push(await makespan(b, "replicated", replicas, k));
  b.log(
    `makespan, ${MAKESPAN_REPLICAS} replicas on PostgreSQL: ${replicated.map((m) => `K=${m.k} ${m.ratio.toFixed(2)}`).join(", ")}`,
  );
  for (const r of replicas) await b.stop(r);
  return { oneReplica, replicated };
}

/** The ARM calls of one uncontended resize on `one`, by kind, against the fewest it can make. */
async function armCallsOfAResize(b: Bench, one: ChildService) {
  await b.scaleSet("calls-1");
  await b.control.clearCalls();
  const [callTask] = await b.waitAll(one, [await b.submit(one, "calls-1", 3)], 5);
  let seenWrite = false;
  const breakdown = { read: 0, write: 0, poll: 0, finalGet: 0 };
  for (const c of await b.control.calls()) {
    if (c.method === "PATCH") {
      breakdown.write++;
      seenWrite = true;
    } else if (/\/operations\//i.test(c.path)) breakdown.poll++;
    else if (c.method === "GET" && seenWrite) breakdown.finalGet++;
    else if (c.method === "GET") breakdown.read++;
  }
  // The final GET, and the VM list that confirms the result (a capacity is confirmed only when the VMs agree).
  const minimumCalls = 1 + 1 + Math.ceil(b.sizes.D / b.sizes.pollHint) + 1 + 1;
  return { ...breakdown, total: callTask.armCalls, minimum: minimumCalls, ratio: callTask.armCalls / minimumCalls };
}

/**
 * The makespans of K resizes of one scale set against K·D, on `one` (1 replica, SQLite) and on MAKESPAN_REPLICAS
 * replicas sharing PostgreSQL, both polling at the simulator's scaled interval; the plain SDK script sending the same
 * K at once; the ARM calls of one uncontended resize on `one`.
 */
export async function measureOrdering(b: Bench, one: ChildService) {
  await b.setWriteDuration(b.sizes.D);
  const { oneReplica, replicated } = await makespans(b, one);

  // The plain SDK script sending the same K changes at once.
  const kMax = b.sizes.ks.at(-1)!;
  await b.scaleSet("mk-plain");
  const plainBurst = await b.plainSdk<PlainSdkBurst>("burst", "mk-plain", String(kMax));
  b.log(`plain SDK burst of ${kMax}: ${plainBurst.refused} refused with 409`);

  const armCalls = await armCallsOfAResize(b, one);
  b.log(`ARM calls per resize: ${armCalls.total} (minimum ${armCalls.minimum})`);

  const one20 = oneReplica.at(-1)!;
  const many20 = replicated.at(-1)!;
  const rows: Row[] = [
    {
      figure: `K = ${one20.k} resizes of one scale set, 1 replica: makespan / (K·D)`,
      measured: one20.ratio,
      target: "≤ 1.1, exactly K writes, 0 refused",
      met: one20.ratio <= 1.1 && one20.writes === one20.k && one20.refused === 0,
      detail: `${one20.makespanMs} ms for K·D = ${one20.boundMs} ms; ${one20.writes} writes, ${one20.refused} refused`,
    },
    {
      figure: `the same on ${MAKESPAN_REPLICAS} replicas sharing PostgreSQL`,
      measured: many20.ratio,
      target: "≤ 1.1, exactly K writes, 0 refused, last submitted wins",
      met: many20.ratio <= 1.1 && many20.writes === many20.k && many20.refused === 0 && many20.lastSubmittedWins,
      detail: `${many20.makespanMs} ms; ${many20.writes} writes, ${many20.refused} refused, last submitted ${many20.lastSubmittedWins ? "wins" : "LOST"}`,
    },
    {
      figure: `the same ${kMax} changes sent at once by a plain SDK script`,
      measured: plainBurst.refused,
      target: "reported beside it",
      met: null,
      detail: `${plainBurst.succeeded} succeeded, ${plainBurst.refused} refused with 409`,
    },
    {
      figure: "ARM calls per uncontended resize / minimum",
      measured: armCalls.ratio,
      target: "1 (1 read + 1 write + ⌈D / poll⌉ + 1 final GET + 1 VM list that confirms)",
      met: armCalls.total <= armCalls.minimum,
      detail: `${armCalls.total}: ${armCalls.read} read + ${armCalls.write} write + ${armCalls.poll} polls + ${armCalls.finalGet} final GET and VM list; minimum ${armCalls.minimum}`,
    },
  ];
  const makespan = {
    oneReplicaSqlite: oneReplica,
    replicasPostgres: { replicas: MAKESPAN_REPLICAS, runs: replicated },
    plainSdkBurst: plainBurst,
    lroMaxPollIntervalMs: b.sizes.pollHint,
  };
  return { rows, results: { makespan, armCalls } } satisfies Figure;
}

export type Makespans = Awaited<ReturnType<typeof measureOrdering>>["results"]["makespan"];

/** DIR/makespan.svg: the makespans against K·D and the 1.1 target. */
export function writeMakespanChart(out: string, m: Makespans, D: number): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, "makespan.svg"),
    makespanChart(
      [
        {
          label: "1 replica, SQLite",
          color: "#1f77b4",
          points: m.oneReplicaSqlite.map((x) => [x.boundMs, x.makespanMs]),
        },
        {
          label: `${m.replicasPostgres.replicas} replicas, PostgreSQL`,
          color: "#d62728",
          points: m.replicasPostgres.runs.map((x) => [x.boundMs, x.makespanMs]),
        },
      ],
      `K resizes of one scale set, D = ${D} ms, polls every ${m.lroMaxPollIntervalMs} ms at most`,
      1.1,
    ),
  );
}
