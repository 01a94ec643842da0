// What users' PostgreSQL feels of a resize: the WAL and the statements per task of real resizes through the real
// service (1 replica, TASK_STORE=postgres, the simulator at D = throughputD, polled at its pace), this tree against
// the tree before (the previous release's, bench/previous-release, or --tree REF), taken as
// bench/previous-release.ts takes it. Rounds alternated (before, after, before, after: the load other work puts on the machine
// drifts), each on a service started for it (its database kept from round to round), warmed up by one resize, then
// `tasks` resizes on scale sets of their own submitted by 16 callers and each waited for with held reads
// (GET /task/{id}?wait=), then the service stopped: nothing of the other tree runs during a round. Then the side's
// database is vacuumed, in the round: what autovacuum would do of its rows later, during the other side's round (the
// GIN index's pending list, dead versions, index entries), counted where it belongs. No ANALYZE: it rewrites the
// statistics of every table whatever the number of tasks (1.4 KiB a task at 200). Every scale set is resized once,
// so its first resize inserts its ARM budget buckets (arm_budget, about 1.2 KiB a task with their key entries).
// results.json keeps each round's LSN range and the relations by file node, to read pg_waldump's records by table.
//
// The WAL is pg_current_wal_lsn()'s advance over the round: the whole server's, so WAL_DATABASE_URL should name a
// server nothing else writes to (a cluster of its own); the commits other databases made meanwhile are reported
// beside it. The statements are pg_stat_statements' calls in the round's database (those that insert, update,
// delete or notify counted apart) where the server loads it, else pg_stat_database's transactions and rows written.
// Target: after / before ≤ 0.5 (the WAL halved).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { ChildService } from "../../testkit/child-service.ts";
import { loadAverage, type Bench } from "../context.ts";
import { median } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";
import { previousTree, treeOf } from "../previous-release.ts";
import { WAL_TARGET } from "../targets.ts";

const WAL_URL =
  process.env.WAL_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The counters of database `name` (and of the server) a round is measured by. */
interface Counters {
  lsn: string;
  statements: number | undefined;
  writes: number | undefined;
  transactions: number;
  rowsWritten: number;
  /** Transactions of every other database but the admin connection's, by name. */
  others: Record<string, number>;
}

class WalServer {
  readonly admin: pg.Client;
  readonly databases: string[] = [];
  readonly clients: pg.Client[] = [];
  statementsKept = true;
  private constructor(admin: pg.Client) {
    this.admin = admin;
  }

  static async open(): Promise<WalServer> {
    const admin = new pg.Client({ connectionString: WAL_URL });
    await admin.connect();
    return new WalServer(admin);
  }

  /** A fresh database for one side, with pg_stat_statements in it if the server loads the module. */
  async database(side: string): Promise<{ name: string; url: string; client: pg.Client }> {
    const name = `vmss_ops_bench_${Math.floor(Date.now() / 1000)}_${process.pid}_wal_${side}_${randomBytes(3).toString("hex")}`;
    await this.admin.query(`CREATE DATABASE ${name}`);
    this.databases.push(name);
    const url = Object.assign(new URL(WAL_URL), { pathname: `/${name}` }).toString();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    this.clients.push(client);
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      await client.query("SELECT 1 FROM pg_stat_statements LIMIT 1");
    } catch {
      // Not in shared_preload_libraries: the transactions and rows of pg_stat_database instead.
      this.statementsKept = false;
    }
    return { name, url, client };
  }

  /** pg_stat_statements' calls in the side's database, by statement (its first 100 characters, spaces squeezed). */
  async callsByStatement(client: pg.Client): Promise<Map<string, number>> {
    if (!this.statementsKept) return new Map();
    const { rows } = await client.query<{ statement: string; calls: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS statement, sum(calls) AS calls
       FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       GROUP BY 1`,
    );
    return new Map(rows.map((r) => [r.statement, Number(r.calls)]));
  }

  async counters(name: string, client: pg.Client): Promise<Counters> {
    const lsn = (await this.admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0].lsn;
    let statements: number | undefined;
    let writes: number | undefined;
    if (this.statementsKept) {
      const { rows } = await client.query<{ calls: string; writes: string }>(
        `SELECT coalesce(sum(calls), 0) AS calls,
                coalesce(sum(calls) FILTER (WHERE query ~* '\\m(insert|update|delete|notify|pg_notify)\\M'), 0) AS writes
         FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query !~* 'pg_stat_statements|pg_stat_database|pg_current_wal_lsn|^vacuum'`,
      );
      statements = Number(rows[0].calls);
      writes = Number(rows[0].writes);
    }
    const { rows } = await this.admin.query<{ datname: string; xacts: string; tuples: string }>(
      `SELECT datname, xact_commit + xact_rollback AS xacts, tup_inserted + tup_updated + tup_deleted AS tuples
       FROM pg_stat_database WHERE datname IS NOT NULL`,
    );
    const own = rows.find((r) => r.datname === name);
    const others = rows.filter((r) => r.datname !== name && r.datname !== this.admin.database);
    return {
      lsn,
      statements,
      writes,
      transactions: Number(own?.xacts ?? 0),
      rowsWritten: Number(own?.tuples ?? 0),
      others: Object.fromEntries(others.map((r) => [r.datname, Number(r.xacts)])),
    };
  }

  /**
   * The database's oid and its relations by file node, to read pg_waldump's records of a round's WAL range ("rel
   * spc/db/filenode") by table and index.
   */
  async relations(client: pg.Client): Promise<{ oid: number; byFilenode: Record<string, string> }> {
    const db = await client.query<{ oid: number }>("SELECT oid FROM pg_database WHERE datname = current_database()");
    const { rows } = await client.query<{ filenode: string; name: string }>(
      `SELECT pg_relation_filenode(c.oid)::text AS filenode, n.nspname || '.' || c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
         AND pg_relation_filenode(c.oid) IS NOT NULL`,
    );
    return { oid: db.rows[0].oid, byFilenode: Object.fromEntries(rows.map((r) => [r.filenode, r.name])) };
  }

  async walBetween(a: string, b: string): Promise<number> {
    const { rows } = await this.admin.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($1, $2) AS bytes", [b, a]);
    return Number(rows[0].bytes);
  }

  async close(): Promise<void> {
    for (const c of this.clients) await c.end().catch(() => {});
    for (const name of this.databases)
      await this.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await this.admin.end();
  }
}

/** Waits for task `id` with held reads, as an orchestrator holding the read would. */
async function waitHeld(one: ChildService, id: string): Promise<TaskView> {
  for (;;) {
    const { status, body } = await one.api<TaskView>("GET", `/task/${id}?wait=30`);
    if (status === 503) {
      await sleep(1000);
      continue;
    }
    if (status !== 200) throw new Error(`GET /task/${id} answered ${status}: ${JSON.stringify(body)}`);
    if (body.status.completed) return body;
  }
}

interface Round {
  side: "before" | "after";
  tasks: number;
  walBytesPerTask: number;
  /** The round's WAL, from LSN to LSN (for pg_waldump --stats). */
  wal: string;
  /** Of walBytesPerTask, the VACUUM of the side's database after the round. */
  vacuumBytesPerTask: number;
  statementsPerTask: number | undefined;
  writesPerTask: number | undefined;
  /** The statements sent most, a task each (the ten first), where pg_stat_statements counts them. */
  statementsByQuery: Record<string, number>;
  transactionsPerTask: number;
  rowsWrittenPerTask: number;
  otherCommits: number;
  /** The other databases that committed during the round, and how many transactions. */
  otherDatabases: Record<string, number>;
  seconds: number;
  failed: number;
  loadAverage: number[];
}

interface Side {
  tree: string | undefined;
  db: { name: string; url: string; client: pg.Client };
}

/** One round on `side`: a service started for it, `tasks` resizes through it, the service stopped. */
async function oneRound(b: Bench, server: WalServer, side: "before" | "after", s: Side, r: number, tasks: number) {
  const { db } = s;
  const env = { TASK_STORE: "postgres", DATABASE_URL: db.url, LOG_LEVEL: "warn", ...b.fastPolls };
  const one = await b.service(env, s.tree);
  const names = Array.from({ length: tasks }, (_, i) => `wal-${side}-${r}-${i}`);
  for (const name of names) await b.scaleSet(name);
  const q0 = await server.callsByStatement(db.client);
  const c0 = await server.counters(db.name, db.client);
  const t0 = Date.now();
  let next = 0;
  const views: TaskView[] = [];
  await Promise.all(
    Array.from({ length: Math.min(16, tasks) }, async () => {
      while (next < tasks) {
        const id = await b.submit(one, names[next++], 2);
        views.push(await waitHeld(one, id));
      }
    }),
  );
  const seconds = (Date.now() - t0) / 1000;
  await b.stop(one);
  // The vacuum the round's rows need, done now: autovacuum would do it later, within the other side's round.
  const lsnRun = (await server.counters(db.name, db.client)).lsn;
  await db.client.query("VACUUM");
  // pg_stat_database hears of a backend's transactions when it flushes its counters (within a second of them).
  await sleep(1500);
  const c1 = await server.counters(db.name, db.client);
  const q1 = await server.callsByStatement(db.client);
  const per = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : (y - x) / tasks;
  const round: Round = {
    side,
    tasks,
    walBytesPerTask: (await server.walBetween(c0.lsn, c1.lsn)) / tasks,
    wal: `${c0.lsn}-${c1.lsn}`,
    vacuumBytesPerTask: (await server.walBetween(lsnRun, c1.lsn)) / tasks,
    statementsPerTask: per(c0.statements, c1.statements),
    writesPerTask: per(c0.writes, c1.writes),
    statementsByQuery: mostSent(q0, q1, tasks),
    transactionsPerTask: (c1.transactions - c0.transactions) / tasks,
    rowsWrittenPerTask: (c1.rowsWritten - c0.rowsWritten) / tasks,
    ...otherWriters(c0.others, c1.others),
    seconds,
    failed: views.filter((v) => v.status.failed).length,
    loadAverage: loadAverage(),
  };
  b.log(
    `wal: ${side}: ${(round.walBytesPerTask / 1024).toFixed(2)} KiB of WAL (${(round.vacuumBytesPerTask / 1024).toFixed(2)} the vacuum after), ${round.statementsPerTask?.toFixed(2) ?? "?"} statements (${round.writesPerTask?.toFixed(2) ?? "?"} writing), ${round.transactionsPerTask.toFixed(2)} transactions a task; ${round.otherCommits} commits elsewhere; load ${round.loadAverage.join(" ")}`,
  );
  return round;
}

/** The ten statements sent most between two counts, each a task (two decimals). */
function mostSent(before: Map<string, number>, after: Map<string, number>, tasks: number): Record<string, number> {
  const sent = [...after]
    .map(([statement, calls]) => [statement, (calls - (before.get(statement) ?? 0)) / tasks] as const)
    .filter(
      ([statement, n]) => n > 0 && !/pg_stat_statements|pg_stat_database|pg_current_wal_lsn|^vacuum/i.test(statement),
    )
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  return Object.fromEntries(sent.map(([statement, n]) => [statement, Math.round(n * 100) / 100]));
}

/** The databases whose transactions grew from `a` to `b`, and by how many in all. */
function otherWriters(a: Record<string, number>, b: Record<string, number>) {
  const grown = Object.entries(b)
    .map(([name, n]) => [name, n - (a[name] ?? 0)] as const)
    .filter(([, n]) => n > 0);
  return { otherCommits: grown.reduce((sum, [, n]) => sum + n, 0), otherDatabases: Object.fromEntries(grown) };
}

type Key = "walBytesPerTask" | "statementsPerTask" | "writesPerTask" | "transactionsPerTask";

/** The figure of the rounds: medians a side, their ratios, the rows. */
function summary(rounds: Round[], commit: string, statementsKept: boolean): Figure {
  const of = (side: "before" | "after", key: Key) => {
    const xs = rounds.filter((x) => x.side === side).map((x) => x[key]);
    return xs.some((x) => x === undefined) ? undefined : median(xs as number[]);
  };
  const walBefore = of("before", "walBytesPerTask")!;
  const walAfter = of("after", "walBytesPerTask")!;
  const statementsBefore = of("before", "statementsPerTask") ?? of("before", "transactionsPerTask")!;
  const statementsAfter = of("after", "statementsPerTask") ?? of("after", "transactionsPerTask")!;
  const counted = statementsKept ? "statements" : "transactions";
  const otherCommits = rounds.reduce((sum, x) => sum + x.otherCommits, 0);
  const tasks = rounds[0].tasks;
  const wal = {
    takenAt: new Date().toISOString(),
    loadAverage: loadAverage(),
    baseline: commit,
    server: Object.assign(new URL(WAL_URL), { password: "" }).toString(),
    tasksPerRound: tasks,
    rounds,
    otherCommits,
    statementsCounted: statementsKept ? "pg_stat_statements" : "pg_stat_database",
    walBytesPerTask: { before: walBefore, after: walAfter },
    statementsPerTask: { before: statementsBefore, after: statementsAfter },
    writesPerTask: { before: of("before", "writesPerTask"), after: of("after", "writesPerTask") },
    walRatio: walAfter / walBefore,
    statementsRatio: statementsAfter / statementsBefore,
    failedTasks: rounds.reduce((sum, x) => sum + x.failed, 0),
  };
  const short = commit.slice(0, 7);
  const pairs = rounds.length / 2;
  const others =
    otherCommits === 0
      ? "nothing else committed on the server"
      : `the WAL includes other writers: ${otherCommits} commits in other databases during the rounds`;
  const writes =
    wal.writesPerTask.before === undefined
      ? ""
      : ` (${wal.writesPerTask.after!.toFixed(2)} against ${wal.writesPerTask.before.toFixed(2)} writing)`;
  const rows: Row[] = [
    {
      figure: `PostgreSQL WAL per resize through the service, this tree / ${short}`,
      measured: Number(wal.walRatio.toFixed(2)),
      target: `≤ ${WAL_TARGET}`,
      met: wal.walRatio <= WAL_TARGET && wal.failedTasks === 0,
      detail: `${(walAfter / 1024).toFixed(2)} KiB against ${(walBefore / 1024).toFixed(2)} KiB a task (medians of ${pairs} rounds of ${tasks} a side, alternated); ${others}`,
    },
    {
      figure: `PostgreSQL ${counted} per resize through the service, this tree / ${short}`,
      measured: Number(wal.statementsRatio.toFixed(2)),
      target: `≤ ${WAL_TARGET}`,
      met: wal.statementsRatio <= WAL_TARGET && wal.failedTasks === 0,
      detail: `${statementsAfter.toFixed(2)} against ${statementsBefore.toFixed(2)} a task${writes} (${wal.statementsCounted}), held reads and the runner's claims included`,
    },
  ];
  return { rows, results: { wal } };
}

export async function measureWal(b: Bench, ref?: string): Promise<Figure> {
  const into = mkdtempSync(join(tmpdir(), "vmss-ops-wal-before-"));
  const made = ref === undefined ? await previousTree(into) : await treeOf(ref, into);
  const before = made.ok
    ? { ...made, dir: made.tree, remove: () => rmSync(into, { recursive: true, force: true }) }
    : { skipped: made.reason };
  if ("skipped" in before) {
    rmSync(into, { recursive: true, force: true });
    b.log(`wal: skipped, the tree before cannot be made: ${before.skipped}`);
    const wal = { skipped: before.skipped, baseline: ref ?? "the previous release", takenAt: new Date().toISOString() };
    return { rows: [], results: { wal } };
  }
  const server = await WalServer.open();
  try {
    await b.setWriteDuration(b.throughputD);
    const tasks = b.smoke ? 4 : 200;
    const pairs = b.smoke ? 1 : 2;
    const sides: Record<"before" | "after", Side> = {
      before: { tree: before.dir, db: await server.database("before") },
      after: { tree: undefined, db: await server.database("after") },
    };
    const rounds: Round[] = [];
    for (let r = 0; r < pairs * 2; r++) {
      const side = r % 2 === 0 ? "before" : "after";
      rounds.push(await oneRound(b, server, side, sides[side], r, tasks));
    }
    const relations = {
      before: await server.relations(sides.before.db.client),
      after: await server.relations(sides.after.db.client),
    };
    const figure = summary(rounds, before.commit, server.statementsKept);
    return { ...figure, results: { wal: { ...(figure.results.wal as object), relations } } };
  } finally {
    await server.close();
    before.remove();
  }
}
