// What the service says at start about a PostgreSQL that will not vacuum the task store's tables
// (src/tasks/pg/vacuum-settings.ts): each case of the server's settings and the tables' own.
import t from "tap";
import { vacuumWarnings } from "../src/tasks/pg/vacuum-settings.ts";

const where = "PostgreSQL postgres://db/tasks, schema public";
const on = { autovacuum: true, trackCounts: true, tablesWithout: [] };

void t.test("autovacuum on, every table left to it: nothing to say", async (t) => {
  t.same(vacuumWarnings(on, where), []);
});

void t.test("autovacuum off on the server: one line, naming the store and what to do", async (t) => {
  const [line, ...rest] = vacuumWarnings({ ...on, autovacuum: false }, where);
  t.same(rest, []);
  t.match(line, /runs with autovacuum = off \(PostgreSQL postgres:\/\/db\/tasks, schema public\)/);
  t.match(line, /every claim reads through them: vacuum the store's tables on a schedule, or turn autovacuum on/);
});

void t.test("track_counts off: autovacuum is on but blind", async (t) => {
  const lines = vacuumWarnings({ ...on, trackCounts: false }, where);
  t.equal(lines.length, 1);
  t.match(lines[0], /track_counts = off, so autovacuum cannot tell which tables need it/);
});

void t.test("tables that turn it off are named, beside the server's line", async (t) => {
  const lines = vacuumWarnings({ autovacuum: false, trackCounts: true, tablesWithout: ["task_wakes", "tasks"] }, where);
  t.equal(lines.length, 2);
  t.match(lines[1], /tables task_wakes, tasks have autovacuum_enabled = false/);
});
