// `vmss-ops conformance --account A --resource-group R --subnet-id S --yes`: the whole service proven on a
// subscription, through the service's own API as a pipeline drives it (the service holds the Azure credential, the
// command none): a throwaway Uniform scale set of capacity 0 of the smallest size the region offers the subscription
// (or --size), then every operation against it, and a Flexible one unless Azure refuses the subscription one, each
// task waited for and judged by the service's read of what Azure reports. Refuses a resource group holding
// anything it did not make; always destroys what it made (tagged vmss-ops-conformance=<run id>): on success, on a
// failure, on SIGINT/SIGTERM, and at the next run when one died.
//   exit 0 every step as expected   1 a step failed, or something was left   2 bad input, a refused group, no --yes
//   3 cannot reach the service      130/143 interrupted (cleaned up)
import { parseArgs } from "node:util";
import { createClient, ServiceError, Unreachable, type Client, type Task } from "./client.ts";
import {
  CONFORMANCE_TAG,
  estimateCost,
  flexiblePlan,
  foreignResources,
  isRunResource,
  newRunId,
  parseImage,
  smallestSize,
  taggedScaleSets,
  throwawaySshKey,
  uniformPlan,
  type GroupResource,
  type Observed,
  type RunSettings,
  type ScaleSetPlan,
  type ServerGroupRead,
  type SizeChoice,
  type Step,
} from "./conformance-plan.ts";

export const CONFORMANCE_USAGE = `vmss-ops conformance --account A --resource-group R --subnet-id <subnet id> --yes
    [--region eastus] [--size <VM size>] [--load-balancer-pool-id <pool id>] [--image p:o:s:v]
    [--upgrade-image p:o:s:v] [--skip-flexible] [--timeout <seconds per task, default 1800>] [--json]
  Proves the service on a subscription: in an empty resource group, a throwaway scale set of capacity 0 driven
  through every operation (and a Flexible one, unless Azure refuses the subscription one), each judged by what
  Azure reports, then destroyed. The size is the smallest the region offers the subscription with quota for the
  run (Azure's resource SKUs and usages), unless --size names one. Prints what it will create and an estimate of its
  cost; runs only with --yes. Exit 0 all as expected, 1 a step failed (or no size fits), 2 bad input or a refused
  group, 3 no service, 130/143 interrupted (what it made is destroyed first).`;

const EXIT = { ok: 0, failed: 1, badInput: 2, unreachable: 3 } as const;
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

/** One row of the report: a step, a cleanup, or a leftover destroyed. */
export interface ReportRow {
  scaleSet: string;
  operation: string;
  label: string;
  taskId?: string;
  /** ARM requests the task made (the service's count: every attempt and poll). */
  armCalls?: number;
  durationMs: number;
  /** skipped: Azure refused the subscription a Flexible scale set (the run goes on without it). */
  outcome: "ok" | "failed" | "interrupted" | "skipped";
  /** What Azure answered: the task's last history line or its failure, then the judgement of the read. */
  azure: string;
}

export interface ConformanceReport {
  runId: string;
  account: string;
  region: string;
  resourceGroup: string;
  /** The VM size of the run's scale sets, and why it was chosen. */
  size: string;
  sizeChosen: string;
  outcome: "ok" | "failed" | "interrupted";
  steps: ReportRow[];
  cleanup: ReportRow[];
  /** Resources of the run Azure still lists after the cleanup (none, when it worked). */
  left: string[];
}

class UsageError extends Error {}
class Interrupted extends Error {}

const OPTIONS = {
  account: { type: "string" },
  "resource-group": { type: "string" },
  region: { type: "string" },
  size: { type: "string" },
  "subnet-id": { type: "string" },
  "load-balancer-pool-id": { type: "string" },
  image: { type: "string" },
  "upgrade-image": { type: "string" },
  "skip-flexible": { type: "boolean" },
  yes: { type: "boolean" },
  json: { type: "boolean" },
  timeout: { type: "string" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

function settingsOf(values: Values, env: Io["env"]): RunSettings {
  const account = values.account ?? env.VMSS_OPS_ACCOUNT;
  const resourceGroup = values["resource-group"];
  const subnetId = values["subnet-id"];
  if (!account) throw new UsageError("--account is required (or VMSS_OPS_ACCOUNT)");
  if (!resourceGroup) throw new UsageError("--resource-group is required: a fresh, empty group");
  if (!subnetId)
    throw new UsageError("--subnet-id is required: a subnet outside the group, e.g. /subscriptions/…/subnets/default");
  if (values.timeout !== undefined && !/^[1-9]\d*$/.test(values.timeout))
    throw new UsageError(`--timeout takes whole seconds for each task, got "${values.timeout}"`);
  const image = parseImage(values.image ?? "Canonical:ubuntu-24_04-lts:server:latest");
  const upgradeImage = parseImage(values["upgrade-image"] ?? "Canonical:ubuntu-24_04-lts:minimal:latest");
  if (!image || !upgradeImage) throw new UsageError("--image and --upgrade-image take publisher:offer:sku:version");
  return {
    account,
    region: values.region ?? env.VMSS_OPS_REGION ?? "eastus",
    resourceGroup,
    runId: newRunId(),
    // chosen from the region's sizes before the run when not given (chooseSize)
    size: values.size ?? "",
    image,
    upgradeImage,
    subnetId,
    loadBalancerPoolId: values["load-balancer-pool-id"],
    sshPublicKey: throwawaySshKey(),
  };
}

/** The run's state shared by its steps: the service, the signal that stops it, and the report so far. */
class Run {
  readonly client: Client;
  readonly settings: RunSettings;
  readonly report: ConformanceReport;
  readonly timeoutMs: number;
  /** The signal that asked the run to stop, once one did. */
  stoppedBy: string | undefined;

  constructor(client: Client, settings: RunSettings, timeoutMs: number) {
    this.client = client;
    this.settings = settings;
    this.timeoutMs = timeoutMs;
    const { runId, account, region, resourceGroup } = settings;
    this.report = {
      runId,
      account,
      region,
      resourceGroup,
      size: settings.size,
      sizeChosen: "named by --size",
      outcome: "ok",
      steps: [],
      cleanup: [],
      left: [],
    };
  }

  checkStopped(): void {
    if (this.stoppedBy) throw new Interrupted(`stopped by ${this.stoppedBy}`);
  }

  /** Submits an operation and waits for its task; a stop cancels it and throws Interrupted. */
  async runTask(operation: string, body: unknown, stoppable: boolean): Promise<Task> {
    if (stoppable) this.checkStopped();
    const { data: ref } = await this.client.submitRaw(operation, body);
    const id = (ref as { id: string }).id;
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      // Short holds, so that a signal is acted on within seconds; a stopped run cancels the task it waits for.
      const { data: task } = await this.client.task(id, 2);
      if (task.status.completed) return task;
      if (stoppable && this.stoppedBy) {
        await this.client.cancel(id).catch(() => undefined);
        throw new Interrupted(`stopped by ${this.stoppedBy} while ${operation} ran (task ${id}, canceled)`);
      }
      if (Date.now() > deadline)
        throw new Error(`task ${id} (${operation}) has not ended after ${this.timeoutMs / 1000} s`);
    }
  }

  /** The scale set as the service reads it from Azure now, or "gone" when Azure answers 404. */
  async observe(name: string): Promise<Observed> {
    const { account, region, resourceGroup } = this.settings;
    try {
      return (await this.client.serverGroupNow(account, region, resourceGroup, name)).data;
    } catch (err) {
      if (err instanceof ServiceError && err.status === 404) return "gone";
      throw err;
    }
  }

  async contents(): Promise<GroupResource[] | undefined> {
    const { data } = await this.client.resourceGroupContents(this.settings.account, this.settings.resourceGroup);
    return data.exists ? data.resources : undefined;
  }
}

function taskSays(task: Task): string {
  const failure = task.resultObjects.find((r) => r.type === "EXCEPTION") as
    { cause?: string; message?: string } | undefined;
  if (failure) return `${failure.cause ?? "failed"}: ${failure.message ?? ""}`.slice(0, 300);
  // The operation's own last line ("Done: … as Azure confirmed"), not the orchestration's closing one.
  const own = task.history.filter((h) => h.phase !== "ORCHESTRATION").at(-1);
  return (own?.status ?? task.state).slice(0, 300);
}

/** One step: its task, then the read that judges it. A row in the report either way. */
async function runStep(run: Run, plan: ScaleSetPlan, step: Step, before: ServerGroupRead | undefined) {
  const started = Date.now();
  const row: ReportRow = {
    scaleSet: plan.name,
    operation: step.operation,
    label: step.label,
    durationMs: 0,
    outcome: "failed",
    azure: "",
  };
  run.report.steps.push(row);
  try {
    const task = await run.runTask(step.operation, step.body(before), true);
    row.taskId = task.id;
    row.armCalls = task.armCalls;
    row.azure = taskSays(task);
    const after = await run.observe(plan.name);
    const problem = task.status.failed ? `the task ${task.state}` : step.judge(after);
    row.outcome = problem ? "failed" : "ok";
    if (problem) row.azure = `${row.azure}; ${problem}`;
    return after === "gone" ? undefined : after;
  } catch (err) {
    row.outcome = err instanceof Interrupted ? "interrupted" : "failed";
    row.azure = (err as Error).message.slice(0, 300);
    throw err;
  } finally {
    row.durationMs = Date.now() - started;
    if (row.outcome === "failed") run.report.outcome = "failed";
  }
}

/**
 * Azure's answers that mean the subscription may not have a Flexible scale set (a feature or size it is not allowed,
 * a quota it has not got), as opposed to the service doing something wrong.
 */
const SUBSCRIPTION_REFUSALS =
  /\b(OperationNotAllowed|SubscriptionNotRegisteredForFeature|FeatureNotSupportedForSubscription|NotAvailableForSubscription|SkuNotAvailable|QuotaExceeded)\b/;

/**
 * A plan's steps in order; the first that fails ends it (the cleanup destroys what is left). A Flexible set whose
 * create Azure refuses the subscription is skipped, not failed: "a Flexible one if the subscription allows".
 */
async function runPlan(run: Run, plan: ScaleSetPlan): Promise<boolean> {
  let before: ServerGroupRead | undefined;
  for (const [i, step] of plan.steps.entries()) {
    const failedBefore = run.report.outcome === "failed";
    before = await runStep(run, plan, step, before);
    const row = run.report.steps.at(-1)!;
    if (row.outcome === "ok") continue;
    if (plan.kind === "Flexible" && i === 0 && row.outcome === "failed" && SUBSCRIPTION_REFUSALS.test(row.azure)) {
      row.outcome = "skipped";
      row.azure = `the subscription does not allow a Flexible scale set here, Azure answered: ${row.azure}`;
      if (!failedBefore) run.report.outcome = "ok";
      return true;
    }
    return false;
  }
  return true;
}

/** Destroys every scale set the run (or, with runId undefined, any run) tagged; never anything untagged. */
async function destroyTagged(run: Run, rows: ReportRow[], runId: string | undefined): Promise<void> {
  const { account, region, resourceGroup } = run.settings;
  for (const ss of taggedScaleSets((await run.contents()) ?? [], runId)) {
    const started = Date.now();
    const row: ReportRow = {
      scaleSet: ss.name,
      operation: "destroyServerGroup",
      label: `clean up (${CONFORMANCE_TAG}=${ss.tags[CONFORMANCE_TAG]})`,
      durationMs: 0,
      outcome: "failed",
      azure: "",
    };
    rows.push(row);
    try {
      const task = await run.runTask(
        "destroyServerGroup",
        { credentials: account, region, resourceGroup, serverGroupName: ss.name },
        false,
      );
      row.taskId = task.id;
      row.armCalls = task.armCalls;
      row.azure = taskSays(task);
      row.outcome = task.status.failed ? "failed" : "ok";
    } catch (err) {
      row.azure = (err as Error).message.slice(0, 300);
    } finally {
      row.durationMs = Date.now() - started;
    }
  }
}

/** What is still listed of the run after its cleanup. */
async function leftOf(run: Run): Promise<string[]> {
  const resources = (await run.contents()) ?? [];
  return resources.filter((r) => isRunResource(r, resources, run.settings.runId)).map((r) => r.id);
}

function renderReport(report: ConformanceReport): string {
  const rows = [...report.steps, ...report.cleanup];
  const header = ["scale set", "operation", "ARM calls", "seconds", "outcome", "what Azure answered"];
  const cells = rows.map((r) => [
    r.scaleSet,
    r.label,
    r.armCalls === undefined ? "-" : String(r.armCalls),
    (r.durationMs / 1000).toFixed(1),
    r.outcome.toUpperCase(),
    r.azure,
  ]);
  const widths = header.slice(0, 5).map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i < 5 ? v.padEnd(widths[i]) : v)).join("  ");
  const left = report.left.length
    ? `\nleft in ${report.resourceGroup}: ${report.left.join(", ")}`
    : `\nnothing of run ${report.runId} is left in ${report.resourceGroup}`;
  return (
    [
      `conformance run ${report.runId} in ${report.account}/${report.region}/${report.resourceGroup}: ${report.outcome.toUpperCase()}`,
      `size ${report.size}: ${report.sizeChosen}`,
      line(header),
      ...cells.map(line),
    ].join("\n") + left
  );
}

/**
 * The smallest size the region offers the subscription with quota for the most instances a plan has at once (the
 * plans run one after the other), as the service reads Azure's resource SKUs and usages.
 */
async function chooseSize(client: Client, settings: RunSettings, instances: number): Promise<SizeChoice> {
  const { data } = await client.regionVmSizes(settings.account, settings.region);
  return smallestSize(data, instances);
}

/** Reads the group; refuses what the run did not make; says what it will do and what it may cost. */
async function prepare(run: Run, io: Io, plans: ScaleSetPlan[], yes: boolean): Promise<number | undefined> {
  const { resourceGroup, size, region, runId } = run.settings;
  const resources = await run.contents();
  if (!resources) {
    io.err(
      `vmss-ops conformance: resource group ${resourceGroup} does not exist: create it (az group create --name ${resourceGroup} --location ${region})`,
    );
    return EXIT.badInput;
  }
  const foreign = foreignResources(resources);
  if (foreign.length > 0) {
    io.err(
      `vmss-ops conformance: refused: ${resourceGroup} holds ${foreign.length} resource(s) no conformance run made (untagged ${CONFORMANCE_TAG}), and a run touches nothing it did not make; use a fresh, empty group:\n${foreign.map((r) => `  ${r.type} ${r.name}`).join("\n")}`,
    );
    return EXIT.badInput;
  }
  const leftovers = taggedScaleSets(resources);
  const instances = plans.reduce((n, p) => n + p.instancesMade, 0);
  io.err(
    [
      `vmss-ops conformance will, in ${resourceGroup} (${region}), through the service:`,
      `  size: ${size}, ${run.report.sizeChosen}`,
      ...leftovers.map((r) => `  destroy ${r.name}, left by run ${r.tags[CONFORMANCE_TAG]}`),
      ...plans.map(
        (p) =>
          `  create ${p.name} (${p.kind}, ${size}, capacity 0, up to ${p.maxInstances} instance(s)), tagged ${CONFORMANCE_TAG}=${runId}, then: ${p.steps
            .slice(1)
            .map((s) => s.label)
            .join(", ")}`,
      ),
      `  cost: ${estimateCost(size, instances).text}`,
    ].join("\n"),
  );
  if (!yes) {
    io.err("vmss-ops conformance: nothing was done; run it again with --yes");
    return EXIT.badInput;
  }
  if (leftovers.length > 0) await destroyTagged(run, run.report.cleanup, undefined);
  return undefined;
}

/** Stops the run on SIGINT or SIGTERM; a second signal during the cleanup leaves at once. */
function onSignals(run: Run, io: Io): () => void {
  const handler = (signal: NodeJS.Signals) => {
    if (run.stoppedBy) {
      io.err(
        `vmss-ops conformance: ${signal} again: leaving now; the next run destroys what run ${run.settings.runId} made`,
      );
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    run.stoppedBy = signal;
    io.err(
      `vmss-ops conformance: ${signal}: stopping, then destroying what run ${run.settings.runId} made (${signal} again to leave at once)`,
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}

async function runAll(run: Run, plans: ScaleSetPlan[]): Promise<void> {
  try {
    for (const plan of plans) if (!(await runPlan(run, plan))) break;
  } catch (err) {
    if (!(err instanceof Interrupted)) {
      run.report.outcome = "failed";
      run.report.steps.at(-1)!.azure ||= (err as Error).message;
    }
  } finally {
    if (run.stoppedBy) run.report.outcome = "interrupted";
    await destroyTagged(run, run.report.cleanup, run.settings.runId);
    run.report.left = await leftOf(run);
    if (run.report.left.length > 0 || run.report.cleanup.some((r) => r.outcome !== "ok"))
      run.report.outcome = run.report.outcome === "interrupted" ? "interrupted" : "failed";
  }
}

function parse(argv: string[]): Values {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export async function conformance(argv: string[], io: Io): Promise<number> {
  let values: Values;
  let settings: RunSettings;
  try {
    values = parse(argv);
    if (values.help) {
      io.out(CONFORMANCE_USAGE);
      return EXIT.ok;
    }
    settings = settingsOf(values, io.env);
  } catch (err) {
    io.err(`vmss-ops conformance: ${(err as Error).message}\n\n${CONFORMANCE_USAGE}`);
    return EXIT.badInput;
  }
  const client = createClient({
    baseUrl: values.url ?? io.env.VMSS_OPS_URL ?? "http://127.0.0.1:7002",
    token: io.env.VMSS_OPS_TOKEN,
  });
  const failed = (err: unknown): number => {
    io.err(
      `vmss-ops conformance: ${err instanceof ServiceError ? `${err.status} ${err.body.error}: ${err.body.message}` : (err as Error).message}`,
    );
    if (err instanceof ServiceError) return err.status >= 500 ? EXIT.unreachable : EXIT.badInput;
    return err instanceof Unreachable ? EXIT.unreachable : EXIT.failed;
  };
  const uniform = uniformPlan(settings);
  let chosen: SizeChoice | undefined;
  try {
    // Nothing is made yet: a signal here ends the command as it would any other.
    chosen = settings.size ? undefined : await chooseSize(client, settings, uniform.maxInstances);
  } catch (err) {
    return failed(err);
  }
  if (chosen && !chosen.size) {
    io.err(
      `vmss-ops conformance: ${chosen.why}: request quota (az quota update), or name a size the subscription may use with --size`,
    );
    return EXIT.failed;
  }
  if (chosen?.size) settings.size = chosen.size;
  const run = new Run(client, settings, Number(values.timeout ?? 1800) * 1000);
  if (chosen) run.report.sizeChosen = chosen.why;
  const plans = [uniformPlan(settings), ...(values["skip-flexible"] ? [] : [flexiblePlan(settings)])];
  const stopListening = onSignals(run, io);
  try {
    const refused = await prepare(run, io, plans, values.yes ?? false);
    if (refused !== undefined) return refused;
    await runAll(run, plans);
    io.out(values.json ? JSON.stringify(run.report) : renderReport(run.report));
    if (run.stoppedBy) return SIGNAL_EXIT[run.stoppedBy] ?? EXIT.failed;
    return run.report.outcome === "ok" ? EXIT.ok : EXIT.failed;
  } catch (err) {
    return failed(err);
  } finally {
    stopListening();
  }
}
