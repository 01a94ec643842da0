// vmss-ops: the command-line client. Every operation, the tasks, resume and cancel, and the server groups, with
// exit codes a script can act on:
//   0 succeeded   1 the task failed (or was canceled)   2 bad input (a usage error, or the service's 4xx)
//   3 cannot reach the service (or it answered 5xx)     4 timed out waiting
import { parseArgs } from "node:util";
import {
  createClient,
  ServiceError,
  Unreachable,
  type Client,
  type DryRun,
  type OperationBody,
  type Task,
  type TaskQuery,
  type TaskRef,
} from "./client.ts";
import { conformance } from "./conformance.ts";
import { doctor } from "./doctor.ts";
import { describeDryRun } from "./dry-run-view.ts";

export const EXIT = { succeeded: 0, failed: 1, badInput: 2, unreachable: 3, timedOut: 4 } as const;

const USAGE = `vmss-ops: drive the vmss-ops service from a shell.

  vmss-ops resize <server-group> (--desired N [--min N] [--max N] | --target-size N)
  vmss-ops disable <server-group>         vmss-ops enable <server-group>
  vmss-ops scale-down <server-group> [--desired N]
  vmss-ops terminate <server-group> --instances <id>[,<id>…]
  vmss-ops destroy <server-group>
  vmss-ops rolling-upgrade <server-group> --image <publisher:offer:sku:version> [--max-surge N|N%] [--max-unavailable N|N%]
  vmss-ops op <operation> --body '<json>'|@file     any operation, createServerGroup and cloneServerGroup included
  vmss-ops ops --body '[{"<operation>": {…}}, …]'|@file   several operations as one task, in order
  vmss-ops tasks [--state S] [--operation O] [--server-group G] [--limit N] [--cursor C]
  vmss-ops task <id> [--wait] [--follow]
  vmss-ops resume <id> [--wait]            vmss-ops cancel <id> [--wait]
  vmss-ops server-groups <application>     vmss-ops server-group <server-group>
  vmss-ops doctor [--account A] [--resource-group R]   each account checked against Azure (docs/cli.md)
  vmss-ops conformance --account A --resource-group R --subnet-id S --yes   every operation proven in an empty group

Operations take --account (VMSS_OPS_ACCOUNT, default demo), --region (VMSS_OPS_REGION, default eastus),
--resource-group, --client-request-id, and --dry-run (plan only: nothing is written, no task is made).
--wait waits for the task to end (--timeout seconds, default 900); --follow prints its history as it grows.
--json prints the service's answer as JSON, for scripts. The service: --url or VMSS_OPS_URL (default
http://127.0.0.1:7002); a bearer token from VMSS_OPS_TOKEN.

Exit status: 0 succeeded, 1 failed, 2 bad input, 3 cannot reach the service, 4 timed out waiting.`;

class UsageError extends Error {}

const OPERATION_COMMANDS = ["resize", "disable", "enable", "destroy", "scale-down", "terminate", "rolling-upgrade"];

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** A terminal: a progress line is drawn on it. */
  tty: boolean;
  env: Record<string, string | undefined>;
}

const OPTIONS = {
  account: { type: "string" },
  region: { type: "string" },
  "resource-group": { type: "string" },
  "client-request-id": { type: "string" },
  desired: { type: "string" },
  min: { type: "string" },
  max: { type: "string" },
  "target-size": { type: "string" },
  instances: { type: "string" },
  image: { type: "string" },
  "max-surge": { type: "string" },
  "max-unavailable": { type: "string" },
  body: { type: "string" },
  state: { type: "string" },
  operation: { type: "string" },
  "server-group": { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  "dry-run": { type: "boolean" },
  wait: { type: "boolean" },
  follow: { type: "boolean" },
  json: { type: "boolean" },
  timeout: { type: "string" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parse>["values"];
function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function int(values: Values, name: keyof typeof OPTIONS): number | undefined {
  const raw = values[name];
  if (raw === undefined || typeof raw === "boolean") return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** A count or a percentage of the desired count ("25%"), as maxSurge and maxUnavailable take them. */
function countOrPercent(values: Values, name: "max-surge" | "max-unavailable"): number | string {
  const raw = values[name] ?? "";
  return /^\d+%$/.test(raw) ? raw : int(values, name)!;
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1)
    throw new UsageError(`expected one ${what}, got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  return positionals[0];
}

/** The description of an operation named on the command line, typed on the API document's bodies. */
function description(command: string, name: string, values: Values, env: Io["env"]) {
  const target = {
    credentials: values.account ?? env.VMSS_OPS_ACCOUNT ?? "demo",
    region: values.region ?? env.VMSS_OPS_REGION ?? "eastus",
    serverGroupName: name,
    ...(values["resource-group"] ? { resourceGroup: values["resource-group"] } : {}),
  };
  switch (command) {
    case "resize": {
      const [desired, min, max] = [int(values, "desired"), int(values, "min"), int(values, "max")];
      const targetSize = int(values, "target-size") ?? (min === undefined && max === undefined ? desired : undefined);
      // --desired alone is Orca's targetSize: the recorded min and max widen to include it.
      if (targetSize !== undefined)
        return {
          operation: "resizeServerGroup" as const,
          body: { ...target, targetSize } satisfies OperationBody<"resizeServerGroup">,
        };
      if (desired === undefined || min === undefined || max === undefined)
        throw new UsageError("resize needs --desired N, with both --min and --max or neither (or --target-size N)");
      return {
        operation: "resizeServerGroup" as const,
        body: { ...target, capacity: { min, max, desired } } satisfies OperationBody<"resizeServerGroup">,
      };
    }
    case "disable":
      return { operation: "disableServerGroup" as const, body: target satisfies OperationBody<"disableServerGroup"> };
    case "enable":
      return { operation: "enableServerGroup" as const, body: target satisfies OperationBody<"enableServerGroup"> };
    case "destroy":
      return { operation: "destroyServerGroup" as const, body: target satisfies OperationBody<"destroyServerGroup"> };
    case "scale-down": {
      const desired = int(values, "desired");
      return {
        operation: "scaleDown" as const,
        body: (desired === undefined
          ? target
          : { ...target, capacity: { min: 0, max: desired, desired } }) satisfies OperationBody<"scaleDown">,
      };
    }
    case "terminate": {
      const ids = (values.instances ?? "").split(",").filter(Boolean);
      if (ids.length === 0) throw new UsageError("terminate needs --instances <id>[,<id>…]");
      return {
        operation: "terminateInstances" as const,
        body: { ...target, instanceIds: ids } satisfies OperationBody<"terminateInstances">,
      };
    }
    case "rolling-upgrade": {
      const parts = (values.image ?? "").split(":");
      if (parts.length !== 4 || parts.some((p) => !p))
        throw new UsageError("rolling-upgrade needs --image publisher:offer:sku:version");
      const [publisher, offer, sku, version] = parts;
      return {
        operation: "rollingUpgrade" as const,
        body: {
          ...target,
          image: { publisher, offer, sku, version },
          ...(values["max-surge"] !== undefined ? { maxSurge: countOrPercent(values, "max-surge") } : {}),
          ...(values["max-unavailable"] !== undefined
            ? { maxUnavailable: countOrPercent(values, "max-unavailable") }
            : {}),
        } satisfies OperationBody<"rollingUpgrade">,
      };
    }
  }
  return undefined;
}

async function readBody(raw: string | undefined): Promise<unknown> {
  if (!raw) throw new UsageError("op needs --body '<json>' or --body @file");
  let text = raw;
  if (raw.startsWith("@")) {
    const { readFile } = await import("node:fs/promises");
    text = await readFile(raw.slice(1), "utf8").catch((err: Error) => {
      throw new UsageError(`cannot read ${raw.slice(1)}: ${err.message}`);
    });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--body is not JSON: ${(err as Error).message}`);
  }
}

function outcomeOf(task: Task): number {
  if (!task.status.completed) return EXIT.timedOut;
  return task.status.failed ? EXIT.failed : EXIT.succeeded;
}

function line(entry: { phase: string; status: string }): string {
  return `  ${entry.phase.padEnd(22)} ${entry.status}`;
}

function summary(task: Task): string {
  const head = `task ${task.id}: ${task.state} (${task.operations.join(", ")})`;
  const lines = [head, ...task.history.map(line)];
  const failure = task.resultObjects.find((r) => r.type === "EXCEPTION") as { message?: string } | undefined;
  if (failure?.message)
    lines.push(
      `failed: ${failure.message}${task.status.retryable ? " (retryable: vmss-ops resume " + task.id + ")" : ""}`,
    );
  return lines.join("\n");
}

interface WaitOptions {
  follow: boolean;
  timeoutMs: number;
}

/** Waits for a task to end, with ?wait= (held by the service, no busy polling); --follow prints history lines as they come. */
async function waitFor(client: Client, io: Io, id: string, options: WaitOptions, json: boolean): Promise<Task> {
  const deadline = Date.now() + options.timeoutMs;
  const started = Date.now();
  let printed = 0;
  for (;;) {
    const left = deadline - Date.now();
    // The service holds each request until the task ends or the hold runs out: --follow asks every second for new
    // lines, a progress line on a terminal every two; otherwise up to a minute at a time.
    const hold = Math.max(0, Math.min(options.follow ? 1 : io.tty && !json ? 2 : 60, Math.floor(left / 1000)));
    const { data: task } = await client.task(id, hold);
    if (options.follow && !json) {
      for (const entry of task.history.slice(printed)) io.out(line(entry));
      printed = task.history.length;
    }
    if (io.tty && !json && !options.follow) {
      const last = task.history.at(-1)?.status ?? "";
      io.err(`\r\x1b[2K${task.state} ${Math.round((Date.now() - started) / 1000)}s: ${last.slice(0, 100)}`);
    }
    if (task.status.completed || Date.now() >= deadline) {
      if (io.tty && !json && !options.follow) io.err("\r\x1b[2K");
      if (!task.status.completed)
        io.err(
          `vmss-ops: task ${id} has not ended after ${Math.round(options.timeoutMs / 1000)} s (still ${task.state}); vmss-ops task ${id} --wait to wait again`,
        );
      return task;
    }
  }
}

/** What every command works with: its options and arguments, the service, and how to print. */
interface Command {
  values: Values;
  name: string;
  rest: string[];
  io: Io;
  json: boolean;
  client: Client;
  waitOptions: WaitOptions;
  print(data: unknown, human: string): void;
}

/** Runs the command; resolves with its exit status. Never throws. */
export async function run(argv: string[], io: Io): Promise<number> {
  if (argv[0] === "doctor") return doctor(argv.slice(1), io);
  if (argv[0] === "conformance") return conformance(argv.slice(1), io);
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
  } catch (err) {
    io.err(`vmss-ops: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT.badInput;
  }
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? EXIT.succeeded : EXIT.badInput;
  }
  const json = values.json ?? false;
  const client = createClient({
    baseUrl: values.url ?? io.env.VMSS_OPS_URL ?? "http://127.0.0.1:7002",
    token: io.env.VMSS_OPS_TOKEN,
  });
  try {
    const timeout = int(values, "timeout");
    const waitOptions: WaitOptions = { follow: values.follow ?? false, timeoutMs: (timeout ?? 900) * 1000 };
    const print = (data: unknown, human: string) => io.out(json ? JSON.stringify(data) : human);
    return await dispatch({ values, name, rest, io, json, client, waitOptions, print });
  } catch (err) {
    return exitFor(err, io, json);
  }
}

async function dispatch(c: Command): Promise<number> {
  if (OPERATION_COMMANDS.includes(c.name) || c.name === "op" || c.name === "ops") return submit(c);
  switch (c.name) {
    case "tasks":
      return listTasks(c);
    case "task":
      return showTask(c);
    case "resume":
      return waitOrRef(c, (await c.client.resume(one(c.rest, "task id"))).data);
    case "cancel":
      return cancelTask(c);
    case "server-groups":
      return listServerGroups(c);
    case "server-group":
      return showServerGroup(c);
  }
  throw new UsageError(`unknown command "${c.name}"`);
}

/** Without --wait or --follow, the task's reference; with them, the task once it ended, and its exit status. */
async function waitOrRef(c: Command, ref: TaskRef): Promise<number> {
  if (!c.values.wait && !c.values.follow) {
    c.print(ref, `task ${ref.id} accepted: vmss-ops task ${ref.id} --wait`);
    return EXIT.succeeded;
  }
  const task = await waitFor(c.client, c.io, ref.id, c.waitOptions, c.json);
  c.print(task, c.waitOptions.follow ? `task ${task.id}: ${task.state}` : summary(task));
  return outcomeOf(task);
}

/** An operation command, op or ops: the description, submitted (or planned with --dry-run). */
async function submit(c: Command): Promise<number> {
  let operation: string | undefined;
  let body: unknown;
  if (c.name === "ops") {
    if (c.rest.length) throw new UsageError(`ops takes its operations in --body, got ${c.rest.join(" ")}`);
    body = await readBody(c.values.body);
    if (!Array.isArray(body)) throw new UsageError(`ops needs a list body: [{"resizeServerGroup": {…}}, …]`);
  } else if (c.name === "op") {
    operation = one(c.rest, "operation name");
    body = await readBody(c.values.body);
  } else {
    const d = description(c.name, one(c.rest, "server group"), c.values, c.io.env)!;
    operation = d.operation;
    body = d.body;
  }
  const query = { clientRequestId: c.values["client-request-id"], dryRun: c.values["dry-run"] };
  const { data } =
    operation === undefined
      ? await c.client.submitList(body as unknown[], query)
      : await c.client.submitRaw(operation, body, query);
  if (!c.values["dry-run"]) return waitOrRef(c, data as TaskRef);
  const plan = data as DryRun;
  c.print(plan, describeDryRun(plan));
  return EXIT.succeeded;
}

async function listTasks(c: Command): Promise<number> {
  if (c.rest.length) throw new UsageError(`tasks takes no argument, got ${c.rest.join(" ")}`);
  const { data } = await c.client.tasks({
    limit: int(c.values, "limit"),
    // Whatever was typed: the service refuses a state it does not have, naming the ones it has.
    state: c.values.state as TaskQuery["state"],
    operation: c.values.operation,
    serverGroup: c.values["server-group"],
    cursor: c.values.cursor,
  });
  const rows = data.tasks.map(
    (task) =>
      `${task.id}  ${task.state.padEnd(9)}  ${task.operations.join(",").padEnd(22)}  ${task.history.at(-1)?.status ?? ""}`,
  );
  c.print(
    data,
    [...rows, ...(data.nextCursor ? [`more: vmss-ops tasks --cursor ${data.nextCursor}`] : [])].join("\n") ||
      "no tasks",
  );
  return EXIT.succeeded;
}

async function showTask(c: Command): Promise<number> {
  const id = one(c.rest, "task id");
  if (c.values.wait || c.values.follow) return waitOrRef(c, { kind: "taskRef", id, resourceUri: `/task/${id}` });
  const { data } = await c.client.task(id);
  c.print(data, summary(data));
  return data.status.completed ? outcomeOf(data) : EXIT.succeeded;
}

async function cancelTask(c: Command): Promise<number> {
  const id = one(c.rest, "task id");
  const { data } = await c.client.cancel(id);
  if (c.values.wait && !data.status.completed) return waitOrRef(c, { kind: "taskRef", id, resourceUri: `/task/${id}` });
  c.print(data, summary(data));
  return EXIT.succeeded;
}

async function listServerGroups(c: Command): Promise<number> {
  const app = one(c.rest, "application");
  const { data } = await c.client.application(app);
  const groups = [];
  for (const [account, clusters] of Object.entries(data.clusters)) {
    for (const cluster of clusters)
      groups.push(
        ...(await c.client.cluster(app, account, cluster.name)).data.serverGroups.map((g) => ({
          ...g,
          account,
          cluster: cluster.name,
        })),
      );
  }
  c.print(
    groups,
    groups
      .map(
        (g) =>
          `${g.account}  ${g.region}  ${g.name.padEnd(24)} ${g.disabled ? "disabled" : "enabled "}  capacity ${g.capacity.desired} (min ${g.capacity.min}, max ${g.capacity.max}), ${g.instances.length} instance(s)`,
      )
      .join("\n") || `no server groups of ${app}`,
  );
  return EXIT.succeeded;
}

async function showServerGroup(c: Command): Promise<number> {
  const name = one(c.rest, "server group");
  const { data } = await c.client.serverGroup(
    c.values.account ?? c.io.env.VMSS_OPS_ACCOUNT ?? "demo",
    c.values.region ?? c.io.env.VMSS_OPS_REGION ?? "eastus",
    name,
  );
  c.print(
    data,
    `${data.name}  ${data.region}  ${data.disabled ? "disabled" : "enabled"}  capacity ${data.capacity.desired} (min ${data.capacity.min}, max ${data.capacity.max}), ${data.instances.length} instance(s)`,
  );
  return EXIT.succeeded;
}

/** A command's error as its exit status, with a line for the person (and the error body under --json). */
function exitFor(err: unknown, io: Io, json: boolean): number {
  if (err instanceof UsageError) {
    io.err(`vmss-ops: ${err.message} (vmss-ops --help)`);
    return EXIT.badInput;
  }
  if (err instanceof ServiceError) {
    if (json) io.out(JSON.stringify(err.body));
    io.err(`vmss-ops: ${err.status} ${err.body.error}: ${err.body.message}`);
    return err.status >= 500 ? EXIT.unreachable : EXIT.badInput;
  }
  if (err instanceof Unreachable) {
    io.err(`vmss-ops: ${err.message}; is the service running? (--url or VMSS_OPS_URL)`);
    return EXIT.unreachable;
  }
  io.err(`vmss-ops: ${(err as Error).message}`);
  return EXIT.unreachable;
}

/** The command on this process: its arguments, its streams, its environment and its exit status. */
export async function runFromProcess(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(text.startsWith("\r") ? text : `${text}\n`),
    tty: Boolean(process.stderr.isTTY),
    env: process.env,
  });
}

if (import.meta.main) await runFromProcess();
