// autovacuum's work, done by the benchmark where the machine's PostgreSQL runs without it. A CI machine may set
// autovacuum = off (this one does, in conf.d): its tables then keep every dead row for good, and a fleet run of
// 50,000 tasks measured PostgreSQL reading tens of thousands of dead index entries per claim, which no production
// server with autovacuum on would show. So while a fleet runs, this does what autovacuum's launcher would: every
// autovacuum_naptime, each table of the run's database whose dead rows pass its threshold (the table's own settings
// or the server's: threshold + scale factor × rows) is vacuumed, and one whose changes since its last analyze pass
// the analyze threshold is analyzed. With autovacuum on it does nothing: the server's own launcher does the work.
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { cpuMsOf } from "./measure.ts";

/** autovacuum's settings, the server's or a table's own (pg_class.reloptions). */
export interface VacuumSettings {
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
}

/** What autovacuum would do to a table with these counts: autovacuum's rule (PostgreSQL's docs, "Routine Vacuuming"). */
export function autovacuumDue(
  t: { deadRows: number; rows: number; changedSinceAnalyze: number },
  s: VacuumSettings,
): "vacuum" | "analyze" | undefined {
  const rows = Math.max(t.rows, 0);
  if (t.deadRows > s.vacuumThreshold + s.vacuumScaleFactor * rows) return "vacuum";
  if (t.changedSinceAnalyze > s.analyzeThreshold + s.analyzeScaleFactor * rows) return "analyze";
  return undefined;
}

/** A table's settings: its reloptions (`autovacuum_vacuum_threshold=1000`, …) over the server's. */
export function tableSettings(server: VacuumSettings, reloptions: string[] | null): VacuumSettings {
  const own = new Map((reloptions ?? []).map((o) => o.split("=") as [string, string]));
  const pick = (name: string, fallback: number) => (own.has(name) ? Number(own.get(name)) : fallback);
  return {
    vacuumThreshold: pick("autovacuum_vacuum_threshold", server.vacuumThreshold),
    vacuumScaleFactor: pick("autovacuum_vacuum_scale_factor", server.vacuumScaleFactor),
    analyzeThreshold: pick("autovacuum_analyze_threshold", server.analyzeThreshold),
    analyzeScaleFactor: pick("autovacuum_analyze_scale_factor", server.analyzeScaleFactor),
  };
}

/** One vacuum or analyze the stand-in ran. */
export interface VacuumRun {
  table: string;
  kind: "vacuum" | "analyze";
  deadRows: number;
  ms: number;
}

export class BenchAutovacuum {
  readonly runs: VacuumRun[] = [];
  #stopping = false;
  #loop: Promise<void> = Promise.resolve();
  readonly #client: pg.Client;
  readonly #pid: number;
  readonly #cpuAtStart: number;

  private constructor(client: pg.Client, pid: number) {
    this.#client = client;
    this.#pid = pid;
    this.#cpuAtStart = cpuMsOf(pid);
  }

  /** Starts the stand-in on the database at `url`; undefined when the server's autovacuum is on. */
  static async start(url: string): Promise<BenchAutovacuum | undefined> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const settings = Object.fromEntries(
      (
        await client.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name LIKE 'autovacuum%'`,
        )
      ).rows.map((r) => [r.name, r.setting]),
    );
    if (settings.autovacuum === "on") {
      await client.end();
      return undefined;
    }
    const [{ pid }] = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows;
    const av = new BenchAutovacuum(client, pid);
    const server: VacuumSettings = {
      vacuumThreshold: Number(settings.autovacuum_vacuum_threshold),
      vacuumScaleFactor: Number(settings.autovacuum_vacuum_scale_factor),
      analyzeThreshold: Number(settings.autovacuum_analyze_threshold),
      analyzeScaleFactor: Number(settings.autovacuum_analyze_scale_factor),
    };
    av.#loop = av.#run(server, Number(settings.autovacuum_naptime) * 1000);
    return av;
  }

  async #run(server: VacuumSettings, naptimeMs: number): Promise<void> {
    while (!this.#stopping) {
      await this.#pass(server);
      const until = performance.now() + naptimeMs;
      while (!this.#stopping && performance.now() < until) await sleep(Math.min(250, until - performance.now()));
    }
  }

  /** One visit of the launcher: every table that is due, in turn. */
  async #pass(server: VacuumSettings): Promise<void> {
    const { rows } = await this.#client.query<{
      table: string;
      dead: string;
      rows: number;
      changed: string;
      reloptions: string[] | null;
    }>(
      `SELECT s.relname AS table, s.n_dead_tup AS dead, c.reltuples AS rows, s.n_mod_since_analyze AS changed,
              c.reloptions
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid ORDER BY s.relname`,
    );
    for (const t of rows) {
      if (this.#stopping) return;
      const due = autovacuumDue(
        { deadRows: Number(t.dead), rows: Number(t.rows), changedSinceAnalyze: Number(t.changed) },
        tableSettings(server, t.reloptions),
      );
      if (!due) continue;
      const t0 = performance.now();
      await this.#client.query(`${due === "vacuum" ? "VACUUM (ANALYZE)" : "ANALYZE"} ${pg.escapeIdentifier(t.table)}`);
      this.runs.push({ table: t.table, kind: due, deadRows: Number(t.dead), ms: Math.round(performance.now() - t0) });
    }
  }

  /** Stops after the table in hand; what it ran, and the CPU its backend took (PostgreSQL's, as autovacuum's is). */
  async stop(): Promise<{ runs: VacuumRun[]; cpuMs: number }> {
    this.#stopping = true;
    await this.#loop;
    const cpuMs = cpuMsOf(this.#pid) - this.#cpuAtStart;
    await this.#client.end();
    return { runs: this.runs, cpuMs };
  }
}
