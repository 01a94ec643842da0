// A full disk under DATA_DIR is an outage of the SQLite task store, not a bug: a real service (a child process) on a
// small tmpfs that the test fills answers every request that needs a write 503 TaskStoreUnavailable with
// Retry-After (never 500), says "not ready" on /ready while writes fail (its reads still succeed) and "ready" once
// they succeed again, fails no task, and logs the outage once when it starts and once when it clears.
import t from "tap";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "vmss-simulator";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { StoreHealth, watchStoreOutages } from "../src/tasks/store-outage.ts";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { waitFor } from "../testkit/wait-for.ts";

const mountPoint = mkdtempSync(join(tmpdir(), "vmss-ops-disk-full-"));
let mounted = false;
try {
  // A filesystem of its own, so that filling it fills nothing else: tmpfs needs CAP_SYS_ADMIN (root in CI).
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint], { stdio: "pipe" });
  mounted = true;
} catch (err) {
  t.comment(`cannot mount a tmpfs here (${(err as Error).message.split("\n")[0]})`);
}
t.teardown(() => {
  if (mounted) execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the filesystem with one file until it refuses a single byte more; returns its path. */
function fill(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  try {
    for (const size of [256 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

void t.test("a write outage is ended by a write, not by a read or a claim of nothing", async (t) => {
  // node:sqlite's error for a full disk, through the store's seam (what test/sqlite-outage.test.ts's BUSY is live).
  const full = Object.assign(new Error("database or disk is full"), { code: "ERR_SQLITE_ERROR", errcode: 13 });
  let writable = false;
  const seam = Object.assign(new MemoryTaskStore(10), {
    probeWrite: () => (writable ? Promise.resolve() : Promise.reject(full)),
  });
  const health = new StoreHealth();
  const changes: string[] = [];
  health.onChange = (c) => changes.push(c.state);
  const store = watchStoreOutages(seam, health);
  await t.rejects(store.probeWrite!(), { name: "TaskStoreUnavailableError", reason: "SQLITE_FULL" });
  t.ok(health.writeDown && health.down, "down");
  await store.list({ limit: 1 });
  t.ok(health.down, "a read that succeeds does not end it");
  t.same(await store.claim("r", 1000, 1), []);
  t.ok(health.down, "nor does a claim that found nothing to write");
  writable = true;
  await store.probeWrite!();
  t.notOk(health.down, "a write does");
  t.same(changes, ["down", "up"], "told once each way");
});

interface LogLine {
  level: number;
  msg: string;
  storeOutage?: string;
  reason?: string;
  taskId?: string;
}

void t.test(
  "a full disk under DATA_DIR: 503 with Retry-After, /ready false until writes succeed, no task failed, logged once",
  { skip: mounted ? false : "no tmpfs can be mounted here (needs CAP_SYS_ADMIN)" },
  async (t) => {
    const sim = await startSimulator({ port: 0, timeScale: 0.001, seed: true, writeDurationMs: 1000 });
    t.teardown(() => sim.close());
    const dataDir = join(mountPoint, "data");
    const service = await startChildService({
      ...restartableServiceEnv(sim.url, dataDir),
      READY_CACHE_MS: "100",
    });
    t.teardown(async () => {
      service.child.kill("SIGKILL");
      await service.exited;
    });
    let n = 0;
    const submit = () =>
      service.api("POST", `/azure/ops/resizeServerGroup?clientRequestId=disk-full-${++n}`, {
        credentials: "demo",
        region: "eastus",
        serverGroupName: "web-prod-v001",
        capacity: { min: 0, max: 5, desired: 1 + (n % 3) },
      });
    const accepted: string[] = [];
    const answers: { what: string; status: number; retryAfter: string | null; error?: unknown; ms: number }[] = [];
    /** Sends a request and keeps what it got and how long it waited. */
    const record = async (what: string, send: () => Promise<{ status: number; body: unknown; headers: Headers }>) => {
      const sentAt = Date.now();
      const r = await send();
      answers.push({
        what,
        status: r.status,
        retryAfter: r.headers.get("retry-after"),
        error: (r.body as { error?: unknown } | undefined)?.error,
        ms: Date.now() - sentAt,
      });
      if (what === "submit" && r.status === 202) accepted.push((r.body as { id: string }).id);
      return r;
    };

    const first = await record("submit", submit);
    t.equal(first.status, 202, "a submission is taken before the disk fills");
    t.match(await service.waitForTask(accepted[0]), { status: { completed: true, failed: false } }, "and done");
    t.equal((await service.api("GET", "/ready")).status, 200, "ready before");
    const outputBefore = service.output().length;

    // A task under way when the disk fills (its Azure write lasts a second): its writes fail, and it waits.
    t.equal((await record("submit", submit)).status, 202, "a task submitted just before the disk fills");
    const filler = fill(mountPoint);
    // Submissions, polls and /ready while the disk is full, until /ready has said "not ready" and a submission has been
    // refused; a few more after that, so that the outage is met many times (and logged once).
    let refused = 0;
    let notReady = 0;
    await waitFor(
      async () => {
        await record("submit", submit);
        await record("poll", () => service.api("GET", `/task/${accepted[0]}`));
        const ready = await record("ready", () => service.api("GET", "/ready"));
        if (ready.status === 503) notReady++;
        refused = answers.filter((a) => a.what === "submit" && a.status === 503).length;
        return refused >= 10 && notReady >= 3;
      },
      {
        what: "submissions refused and /ready not ready on a full disk",
        timeoutMs: 20_000,
        intervalMs: 20,
        seen: () => answers.slice(-6),
      },
    );
    const readyWhileFull = await service.api("GET", "/ready");
    t.equal(readyWhileFull.status, 503, "/ready says not ready while the disk is full, though reads succeed");

    rmSync(filler);
    const freedAt = Date.now();
    await waitFor(async () => (await service.api("GET", "/ready")).status === 200, {
      what: "/ready to say ready once the disk has room",
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const after = await record("submit", submit);
    t.equal(after.status, 202, "a submission is taken again once the disk has room");
    t.comment(`ready again and a submission taken ${Date.now() - freedAt} ms after the disk had room`);

    const wrong = answers.filter((a) => a.status >= 300 && (a.status !== 503 || a.retryAfter === null));
    t.same(wrong, [], "every answer that is not 2xx is a 503 with Retry-After");
    t.same(
      answers.filter((a) => a.status === 503 && a.what !== "ready" && a.error !== "TaskStoreUnavailable"),
      [],
      "every refused request is TaskStoreUnavailable",
    );
    t.ok(refused >= 10, `${refused} submissions refused while the disk was full`);
    const unavailable = answers.filter((a) => a.status === 503);
    t.comment(
      `${unavailable.length} answers 503 while the disk was full, the slowest in ${Math.max(...unavailable.map((a) => a.ms))} ms`,
    );

    for (const id of accepted) {
      const task = (await service.waitForTask(id)) as { status: { failed?: boolean } };
      t.equal(task.status.failed, false, `task ${id} did not fail`);
      t.match(task, { status: { completed: true } });
    }

    const lines = service
      .output()
      .slice(outputBefore)
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as LogLine);
    t.same(
      lines.filter((l) => l.level >= 50),
      [],
      "no error line: a full disk is not a bug",
    );
    const started = lines.filter((l) => l.storeOutage === "started");
    const cleared = lines.filter((l) => l.storeOutage === "cleared");
    t.equal(started.length, 1, "one line when the outage starts");
    t.match(started[0], { reason: "SQLITE_FULL" }, "naming what happened");
    t.equal(cleared.length, 1, "one line when it clears");
    // Besides those two, at most a line for each task whose run the outage stopped (it is handed back).
    const others = lines.filter((l) => l.level >= 40 && l.storeOutage === undefined);
    t.same(
      others.filter((l) => l.taskId === undefined || !/a write of the task to the task store failed/.test(l.msg)),
      [],
      "no other warning: not a line per request or per claim",
    );
    t.ok(others.length <= accepted.length, `at most a line per task (${others.length})`);
  },
);
