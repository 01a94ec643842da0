// The goals of the figures that are not guards (bench/guards.ts holds those), where the figure and the README's
// table (scripts/write-bench-table.ts) both read them.

/** A deploy's makespan the service is responsible for, at most this many times Azure's critical path. */
export const DEPLOY_TARGET = 1.05;

/** PostgreSQL's WAL (and statements) per resize through the service, after / the tree before: at most this share. */
export const WAL_TARGET = 0.5;
