// A dry run as `vmss-ops … --dry-run` prints it for a person: per operation the write it would send first, each ARM
// request (method, path with api-version, condition, body), what it changes with the symbols of `az deployment
// what-if` (+ create, - delete, ~ modify, = no change, x no effect), and the writes a run decides only later.
import type { DryRun, Schemas } from "./client.ts";

type PlannedOperation = DryRun["operations"][number];
type PropertyChange = Schemas["WhatIfPropertyChange"];

const SYMBOL: Record<string, string> = {
  Create: "+",
  Delete: "-",
  Modify: "~",
  NoChange: "=",
  NoEffect: "x",
  Array: "~",
};

const json = (value: unknown) => JSON.stringify(value);

function indented(text: string, by: string): string[] {
  return text.split("\n").map((line) => `${by}${line}`);
}

function planLine(o: PlannedOperation): string {
  if (o.problem) return `cannot plan: ${o.problem.cause}: ${o.problem.message}`;
  if (o.write?.summary) return `would ${o.write.summary}`;
  if (o.busy) return "busy: another write holds the scale set; a run would wait for it, then plan";
  return `nothing to change${o.unchanged ? `: ${o.unchanged}` : ""}`;
}

function propertyLines(change: PropertyChange, by: string): string[] {
  const symbol = SYMBOL[change.propertyChangeType] ?? "?";
  const head = `${by}${symbol} ${change.path}`;
  if (change.children) return [`${head}:`, ...change.children.flatMap((c) => propertyLines(c, `${by}    `))];
  switch (change.propertyChangeType) {
    case "Create":
      return [`${head}: ${json(change.after)}`];
    case "Delete":
      return [`${head}: ${json(change.before)}`];
    case "NoEffect":
      return [`${head} (set by Azure: no effect)`];
    case "Modify":
    case "Array":
      return [`${head}: ${json(change.before)} => ${json(change.after)}`];
  }
}

function writeLines(write: NonNullable<PlannedOperation["write"]>): string[] {
  const lines: string[] = [];
  for (const r of write.requests) {
    const condition = Object.entries(r.headers ?? {})
      .map(([name, value]) => `  ${name}: ${value}`)
      .join("");
    lines.push(`  ${r.method} ${r.path}${condition}`);
    if (r.body !== undefined) lines.push(...indented(JSON.stringify(r.body, null, 2), "    "));
  }
  for (const c of write.changes) {
    lines.push(`  ${SYMBOL[c.changeType] ?? "?"} ${c.resourceId} (${c.changeType})`);
    for (const d of c.delta ?? []) lines.push(...propertyLines(d, "      "));
  }
  return lines;
}

/** The dry run for a person: one block per operation. */
export function describeDryRun(plan: DryRun): string {
  const blocks = plan.operations.map((o) => {
    const lines = [`${o.operation}: ${planLine(o)}`];
    if (o.write) lines.push(...writeLines(o.write));
    if (o.later?.length) {
      lines.push("  then, decided only on the reads that follow (no request shown):");
      for (const l of o.later) lines.push(`    ${l.kind}: ${l.what} (decided by ${l.decidedBy})`);
    }
    return lines.join("\n");
  });
  return [...(plan.selection ?? []), ...blocks].join("\n");
}
