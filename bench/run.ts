// npm run bench: speed figures, reported as ratios to the simulated write duration measured in the same run, so
// that a noisy machine moves both sides together. Never part of the test suite.
//
//   race:   a write still in flight, then scaleDown on the same scale set. How long after that write ends does the
//           scaleDown end? Goal: about one write duration (the scaleDown's own write), not a backoff's worth more.
//           "own": our disable (the two take turns in this replica's per-scale-set queue); "foreign": another tool's
//           write sent straight to ARM (the scaleDown waits it out by re-reading).
//   calls:  ARM calls of one uncontended resize, by kind. Goal: 1 read, 1 write, the polls its duration needs
//           (write duration / advertised interval), and the final GET that confirms the result.
//   resize: wall time of one uncontended resize task / write duration. Goal: close to 1.
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config.ts";
import { demo, startTestEnv, type TestEnv } from "../test/helpers/service.ts";

const WRITE_MS = Number(process.env.BENCH_WRITE_MS ?? 1000);
/** The race is also run with longer writes: its excess over one write is at most one busy-poll interval. */
const LONG_WRITE_MS = Number(process.env.BENCH_LONG_WRITE_MS ?? 3000);
// The poll interval the simulator advertises: Azure's Retry-After (30 s on polls) × the test helpers' time factor 0.001.
const POLL_HINT_MS = 30;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function submit(env: TestEnv, op: string, body: unknown): Promise<string> {
  const res = await env.api("POST", `/azure/ops/${op}`, body);
  if (res.status !== 202) throw new Error(`${op}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function race(env: TestEnv, writeMs: number, rounds: number, writer: "own" | "foreign") {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: writeMs });
  const other = createComputeClient(simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }));
  const gaps: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await env.simControl("POST", "/_sim/reset");
    let firstEnded: Promise<number>;
    if (writer === "own") {
      const disableId = await submit(env, "disableServerGroup", demo("web-prod-v001"));
      while (!(await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body.inFlight) await new Promise((r) => setTimeout(r, 5));
      firstEnded = env.waitForTask(disableId, 120_000).then((d) => {
        if (d.status.failed) throw new Error(JSON.stringify(d.history));
        return d.endTimeMs as number;
      });
    } else {
      const poller = other.virtualMachineScaleSets.update("demo-rg", "web-prod-v001", { tags: { deployedBy: "other" } }, { updateIntervalInMs: 10 });
      await poller.submitted();
      firstEnded = poller.pollUntilDone().then(() => Date.now());
    }
    const scaleDownId = await submit(env, "scaleDown", demo("web-prod-v001"));
    const [firstEnd, s] = await Promise.all([firstEnded, env.waitForTask(scaleDownId, 120_000)]);
    if (s.status.failed) throw new Error(`race round ${i} failed: ${JSON.stringify(s.history)}`);
    gaps.push(s.endTimeMs - firstEnd);
  }
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: WRITE_MS });
  return gaps;
}

/** ARM calls of one resize under contention, by kind, from the simulator's call log. */
async function contendedResizeCalls(env: TestEnv, contention: "outOfBand" | "foreignWrite") {
  await env.simControl("POST", "/_sim/reset");
  await env.simControl("DELETE", "/_sim/calls");
  let foreign: Promise<unknown> | undefined;
  if (contention === "outOfBand") {
    // A person changes a tag just before our write lands: 412, re-read, re-plan, write.
    await env.simControl("POST", "/_sim/faults", { action: "outOfBandChange", method: "PATCH", pathContains: "web-prod-v002", change: { tags: { owner: "portal" } }, count: 1 });
  } else {
    // Another tool's write is in flight when we start: we read until it ends, then write once.
    const other = createComputeClient(simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }));
    const poller = other.virtualMachineScaleSets.update("demo-rg", "web-prod-v002", { tags: { deployedBy: "other" } }, { updateIntervalInMs: 10 });
    await poller.submitted();
    foreign = poller.pollUntilDone();
    await env.simControl("DELETE", "/_sim/calls");
  }
  const id = await submit(env, "resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 5 } }));
  const task = await env.waitForTask(id, 120_000);
  await foreign;
  if (task.status.failed) throw new Error(JSON.stringify(task.history));
  const calls = (await env.calls()).filter((c) => c.path.toLowerCase().includes("web-prod-v002") || /\/operations\//i.test(c.path));
  const mine = task.armCalls as number;
  const writes = calls.filter((c) => c.method === "PATCH");
  return { total: mine, writes: writes.length, refused: writes.filter((w) => w.status !== 200).length };
}

async function resizeCalls(env: TestEnv) {
  const durations: number[] = [];
  let breakdown: Record<string, number> = {};
  for (let i = 0; i < ROUNDS; i++) {
    await env.simControl("POST", "/_sim/reset");
    await env.simControl("DELETE", "/_sim/calls");
    const id = await submit(env, "resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 4 + (i % 3) } }));
    const task = await env.waitForTask(id, 120_000);
    if (task.status.failed) throw new Error(JSON.stringify(task.history));
    durations.push(task.endTimeMs - task.startTimeMs);
    const calls = await env.calls();
    let seenWrite = false;
    breakdown = { read: 0, write: 0, poll: 0, confirm: 0, total: calls.length };
    for (const c of calls) {
      if (c.method === "PATCH") { breakdown.write++; seenWrite = true; }
      else if (/\/operations\//i.test(c.path)) breakdown.poll++;
      else if (c.method === "GET") seenWrite ? breakdown.confirm++ : breakdown.read++;
    }
  }
  return { durations, breakdown };
}

const env = await startTestEnv({
  writeDurationMs: WRITE_MS,
  // Production defaults for everything the harness decides, except the first poll, which follows the hint anyway.
  env: {
    RETRY_CONFLICT_BASE_DELAY_MS: "200",
    RETRY_BUSY_POLL_INTERVAL_MS: "500",
    RETRY_TRANSIENT_BASE_DELAY_MS: "1000",
    RETRY_MAX_DELAY_MS: "60000",
    LRO_POLL_INTERVAL_MS: "1000",
  },
});
try {
  const gaps = await race(env, WRITE_MS, ROUNDS, "own");
  const foreignGaps = await race(env, WRITE_MS, ROUNDS, "foreign");
  const longGaps = await race(env, LONG_WRITE_MS, Math.max(2, Math.ceil(ROUNDS / 2)), "foreign");
  const { durations, breakdown } = await resizeCalls(env);
  const outOfBand = await contendedResizeCalls(env, "outOfBand");
  const foreignWrite = await contendedResizeCalls(env, "foreignWrite");
  const rows = [
    ["race, own disable: scaleDown end − disable end", `${median(gaps)} ms`, `${(median(gaps) / WRITE_MS).toFixed(2)} × write`, "≈ 1 × write"],
    ["race, another tool's write: scaleDown end − its end", `${median(foreignGaps)} ms`, `${(median(foreignGaps) / WRITE_MS).toFixed(2)} × write`, "≈ 1 × write"],
    [`race, another tool's ${LONG_WRITE_MS} ms write`, `${median(longGaps)} ms`, `${(median(longGaps) / LONG_WRITE_MS).toFixed(2)} × write`, "≈ 1 × write"],
    ["resize task wall time", `${median(durations)} ms`, `${(median(durations) / WRITE_MS).toFixed(2)} × write`, "≈ 1 × write"],
    ["ARM calls per uncontended resize", String(breakdown.total), `${breakdown.read} read + ${breakdown.write} write + ${breakdown.poll} polls + ${breakdown.confirm} final GET`, `1 + 1 + ~${Math.ceil(WRITE_MS / POLL_HINT_MS)} + 1`],
    ["ARM calls per resize, out-of-band change (412)", String(outOfBand.total), `${outOfBand.writes} writes, ${outOfBand.refused} refused`, "uncontended + 1 read + 1 write"],
    ["ARM calls per resize, another tool's write in flight", String(foreignWrite.total), `${foreignWrite.writes} write, ${foreignWrite.refused} refused`, `uncontended + ~${Math.ceil(WRITE_MS / 500)} reads`],
  ];
  console.log(`vmss-ops benchmark — write duration ${WRITE_MS} ms, advertised poll interval ${POLL_HINT_MS} ms, ${ROUNDS} rounds (medians)\n`);
  console.log("| figure | measured | ratio | goal |\n|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log(`\nrace gaps (ms): own ${gaps.join(", ")}; another tool's ${foreignGaps.join(", ")}; with long writes: ${longGaps.join(", ")}; resize durations (ms): ${durations.join(", ")}`);
} finally {
  await env.close();
}
