// Submissions per second from 16 callers, each sending its next when the last is answered, into a fresh service on
// SQLite and one on PostgreSQL (tasks run meanwhile, as they would), onto the scale sets tp-0… (the throughput's).
import type { ChildService } from "../../testkit/child-service.ts";
import type { Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";

async function submissionRate(b: Bench, via: ChildService, prefix: string, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        await b.submit(via, `${prefix}${i % b.sizes.sets}`, 2 + (i % 3));
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

export async function measureSubmissions(b: Bench) {
  const sqlite = await b.service({ TASK_STORE: "sqlite", DATA_DIR: b.tempDir() });
  const sqlitePerSecond = await submissionRate(b, sqlite, "tp-", b.sizes.submissions);
  await b.stop(sqlite);
  const postgres = await b.service({
    TASK_STORE: "postgres",
    DATABASE_URL: await b.database(),
    REPLICA_ID: "bench-submissions",
  });
  const postgresPerSecond = await submissionRate(b, postgres, "tp-", b.sizes.submissions);
  await b.stop(postgres);
  b.log(`submissions: SQLite ${sqlitePerSecond.toFixed(0)}/s, PostgreSQL ${postgresPerSecond.toFixed(0)}/s`);
  const rows: Row[] = [
    {
      figure: "submissions per second, SQLite (/ 1,500)",
      measured: sqlitePerSecond / 1500,
      target: "≥ 1",
      met: sqlitePerSecond >= 1500,
      detail: `${sqlitePerSecond.toFixed(0)}/s`,
    },
    {
      figure: "submissions per second, PostgreSQL (/ 1,000)",
      measured: postgresPerSecond / 1000,
      target: "≥ 1",
      met: postgresPerSecond >= 1000,
      detail: `${postgresPerSecond.toFixed(0)}/s`,
    },
  ];
  return { rows, results: { submissions: { sqlitePerSecond, postgresPerSecond } } } satisfies Figure;
}
