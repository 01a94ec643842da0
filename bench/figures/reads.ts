// GET /task/{id} on the service against a bare fastify route serving the same body (bench/bare-fastify.ts, a process
// of its own), beside the same reads on a replica that keeps no answers; then the same reads while WAITERS requests
// are held by ?wait= on a task whose write outlasts the measurement, against none held.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChildService } from "../../testkit/child-service.ts";
import { UNLIMITED_READS, type Bench } from "../context.ts";
import { median, readRate } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";
import { holdWaiters, WAITERS } from "../waiters.ts";

/** The rows of this figure, which --only-reads replaces. */
export const READS_ROWS =
  /^GET \/task\/\{id\} (\/ bare fastify|with \d+ \?wait=)|^the same, every poll building its answer/;

async function bareFastify(bodyFile: string): Promise<{ url: string; kill: () => void }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "..", "bare-fastify.ts"), bodyFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`bare fastify exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, kill: () => child.kill("SIGKILL") };
}

/** Reads of task `id` on `one` (whose SQLite file is in `oneDir`), on bare fastify, and on a replica keeping no answers. */
async function reads(b: Bench, one: ChildService, oneDir: string, id: string) {
  const pollUrl = `${one.url}/task/${id}`;
  const bodyFile = join(b.tempDir(), "task.json");
  writeFileSync(bodyFile, JSON.stringify((await one.api<unknown>("GET", `/task/${id}`)).body));
  const bare = await bareFastify(bodyFile);
  // The same task through a second replica on the same SQLite file that keeps no answers: every poll reads the
  // task, builds and serializes it, as the first poll after each change does.
  const building = await b.service({
    TASK_STORE: "sqlite",
    DATA_DIR: oneDir,
    TASK_BODY_CACHE_ENTRIES: "0",
    ...UNLIMITED_READS,
  });
  const buildingUrl = `${building.url}/task/${id}`;
  const slice = b.sizes.readSeconds / 3;
  await readRate(`${bare.url}/task/${id}`, slice); // warm-up
  await readRate(pollUrl, slice);
  await readRate(buildingUrl, slice);
  // Three rounds, alternating, medians: the load other work puts on the machine drifts within seconds.
  const bareRates: number[] = [];
  const serviceRates: number[] = [];
  const buildingRates: number[] = [];
  for (let round = 0; round < 3; round++) {
    bareRates.push(await readRate(`${bare.url}/task/${id}`, slice));
    serviceRates.push(await readRate(pollUrl, slice));
    buildingRates.push(await readRate(buildingUrl, slice));
  }
  const [bareRate, serviceRate, buildingRate] = [median(bareRates), median(serviceRates), median(buildingRates)];
  bare.kill();
  await b.stop(building);
  b.log(
    `GET /task/{id}: ${serviceRate.toFixed(0)}/s (${buildingRate.toFixed(0)}/s keeping no answers) against bare fastify ${bareRate.toFixed(0)}/s`,
  );
  return {
    servicePerSecond: serviceRate,
    bareFastifyPerSecond: bareRate,
    ratio: serviceRate / bareRate,
    unkeptPerSecond: buildingRate,
    unkeptRatio: buildingRate / bareRate,
  };
}

/** The reads of task `id` on `one` while WAITERS requests are held on another task, and with none held. */
async function waiting(b: Bench, one: ChildService, id: string) {
  const pollUrl = `${one.url}/task/${id}`;
  await b.scaleSet("wait-held");
  await b.setWriteDuration(b.sizes.readSeconds * 3000 + 10_000);
  const heldTask = await b.submit(one, "wait-held", 2);
  const waiters = await holdWaiters(`${one.url}/task/${heldTask}`, WAITERS);
  // Let the held requests connect and settle: the figure is what they cost while held, not while arriving.
  await sleep(2000);
  const heldRate = await readRate(pollUrl, b.sizes.readSeconds);
  const stillRunning = (await one.api<TaskView>("GET", `/task/${heldTask}`)).body.state === "running";
  await waiters.release();
  const freeRate = await readRate(pollUrl, b.sizes.readSeconds);
  await b.setWriteDuration(b.throughputD);
  b.log(
    `GET /task/{id} with ${WAITERS} waiters held: ${heldRate.toFixed(0)}/s against ${freeRate.toFixed(0)}/s without`,
  );
  return {
    waiters: WAITERS,
    withWaitersPerSecond: heldRate,
    withoutPerSecond: freeRate,
    ratio: heldRate / freeRate,
    heldTaskStillRunning: stillRunning,
  };
}

export async function measureReads(b: Bench, one: ChildService, oneDir: string, id: string) {
  const r = await reads(b, one, oneDir, id);
  const w = await waiting(b, one, id);
  const rows: Row[] = [
    {
      figure: "GET /task/{id} / bare fastify, same body",
      measured: r.ratio,
      target: "≥ 0.6",
      met: r.ratio >= 0.6,
      detail: `${r.servicePerSecond.toFixed(0)}/s against ${r.bareFastifyPerSecond.toFixed(0)}/s`,
    },
    {
      figure: "the same, every poll building its answer (TASK_BODY_CACHE_ENTRIES=0)",
      measured: r.unkeptRatio,
      target: "reported beside it",
      met: null,
      detail: `${r.unkeptPerSecond.toFixed(0)}/s`,
    },
    {
      figure: `GET /task/{id} with ${WAITERS} ?wait= requests held / with none`,
      measured: w.ratio,
      target: "≥ 0.9",
      met: w.ratio >= 0.9 && w.heldTaskStillRunning,
      detail: `${w.withWaitersPerSecond.toFixed(0)}/s against ${w.withoutPerSecond.toFixed(0)}/s; the waited task ${w.heldTaskStillRunning ? "was still running" : "ENDED during the measurement"}`,
    },
  ];
  return { rows, results: { reads: r, waiting: w } } satisfies Figure;
}
