// The service's Prometheus metrics (prom-client), one registry per service instance. Names and labels are
// documented in docs/runbook.md. No label ever carries a secret, a token or a principal's token. The standard
// process_* and nodejs_* metrics keep their standard names (no service prefix), so dashboards built for them find
// them; everything of our own starts with vmssops_. `promtool check metrics` passes on the whole output (a test runs it).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ArmResponseInfo, ArmResponseListener } from "../azure/arm-listeners.ts";
import type { AttemptEnd, Checkpoint } from "../azure/harness/input.ts";
import type { TaskEventContext, TaskListener } from "../tasks/task-listener.ts";
import type { Task } from "../tasks/task.ts";
import { accountOfOperation } from "../tasks/operation-account.ts";

const PREFIX = "vmssops_";
/**
 * How often the event loop's delay is sampled (nodejs_eventloop_lag_*). prom-client's 10 ms wakes an idle replica
 * 100 times a second, about 2.5 ms of CPU a second measured; at 50 ms any stall of 50 ms or more is still seen.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/**
 * prom-client's gauges whose names end in _total, which Prometheus keeps for counters (promtool flags them). Each
 * has a by-type gauge beside it (nodejs_active_handles{type}, …) whose sum is the same figure.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

export interface MetricsSources {
  /** Tasks running in this replica now. */
  tasksInFlight(): number;
  /** Azure's remaining throttling budget, as last reported. */
  throttlingBudget(): { scope: string; policy: string; remaining: number }[];
  /** Tasks waiting to start, across replicas (the store's count); undefined when it cannot be read. */
  backlog?: () => Promise<{ queued: number; oldestAgeSeconds: number } | undefined>;
  /** ARM calls sent without the ARM budget since start, because its ledger did not answer (src/azure/arm-budget/). */
  armCallsUnbudgeted?: () => number;
  /**
   * The ARM budget's counts since start: calls that took from it, those of them this replica's slices served without
   * a statement, and the statements its shared ledger was sent (src/azure/arm-budget/).
   */
  armBudget?: () => { calls: number; local: number; statements: number };
}

/** The ARM budget's counts (src/azure/arm-budget/), as counters: each shows the budget's count at the scrape. */
function armBudgetCounters(registers: Registry[], sources: MetricsSources): void {
  const unbudgeted = sources.armCallsUnbudgeted;
  if (unbudgeted)
    new Counter({
      name: `${PREFIX}arm_budget_unbudgeted_calls_total`,
      help: "ARM calls sent without the ARM budget because its ledger (PostgreSQL) did not answer within its bound",
      registers,
      collect() {
        // The budget counts; the counter shows its count (it only grows).
        this.reset();
        this.inc(unbudgeted());
      },
    });
  const armBudget = sources.armBudget;
  if (armBudget) {
    // The budget counts; each counter shows its count (they only grow). Statements over calls is what a shared
    // ledger costs PostgreSQL per ARM call.
    const counter = (
      name: string,
      help: string,
      read: (c: { calls: number; local: number; statements: number }) => number,
    ) =>
      new Counter({
        name: `${PREFIX}${name}`,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read(armBudget()));
        },
      });
    counter("arm_budget_calls_total", "ARM calls that took from the ARM budget", (c) => c.calls);
    counter(
      "arm_budget_local_calls_total",
      "ARM calls the ARM budget served from this replica's leased slices, without a statement",
      (c) => c.local,
    );
    counter(
      "arm_budget_ledger_statements_total",
      "Statements the ARM budget sent its shared ledger (PostgreSQL): takes, corrections, drains",
      (c) => c.statements,
    );
  }
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly tasks = new Counter({
    name: `${PREFIX}tasks_total`,
    help: "Operations of finished tasks, by operation, account and outcome (succeeded, failed, canceled: the operation it stopped in)",
    labelNames: ["operation", "account", "outcome"],
    registers: [this.registry],
  });
  readonly tasksSubmitted = new Counter({
    name: `${PREFIX}tasks_submitted_total`,
    help: "Tasks created through the API",
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: `${PREFIX}attempts_total`,
    help: "Attempts of operations, by operation, account and how they ended (succeeded, retry, failed)",
    labelNames: ["operation", "account", "outcome"],
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: `${PREFIX}retries_total`,
    help: "Attempts that will be retried, by account and the HTTP status (or failure kind) that ended them",
    labelNames: ["account", "status"],
    registers: [this.registry],
  });
  readonly armCalls = new Counter({
    name: `${PREFIX}arm_calls_total`,
    help: "ARM requests answered, by method and status",
    labelNames: ["method", "status"],
    registers: [this.registry],
  });
  readonly lroSeconds = new Histogram({
    name: `${PREFIX}lro_duration_seconds`,
    help: "Long-running Azure writes, from accepted to ended, by kind (update, manualUpgrade, deleteInstances)",
    labelNames: ["kind"],
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [this.registry],
  });
  readonly queueWaitSeconds = new Histogram({
    name: `${PREFIX}queue_wait_seconds`,
    // By account, not by scale set: a series per scale set held some 11 KB each in this process (11 MB across a
    // fleet of 1,000), and as many series in Prometheus. Which scale set a task waits for, its history says.
    help: "How long an operation waited for its turn on a scale set, by account",
    labelNames: ["account"],
    buckets: [0, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
    registers: [this.registry],
  });
  readonly readCache = new Counter({
    name: `${PREFIX}read_cache_total`,
    help: "Scale-set reads served from the read cache (hit) or from Azure (miss)",
    labelNames: ["result"],
    registers: [this.registry],
  });
  readonly httpResponses = new Counter({
    name: `${PREFIX}http_responses_total`,
    help: "API responses by route and status (401, 403, 429 and 503 included)",
    labelNames: ["method", "route", "status"],
    registers: [this.registry],
  });
  readonly azureAccountReachable = new Gauge({
    name: `${PREFIX}azure_account_reachable`,
    help: "1 when the last readiness check of the account's ARM endpoint got an answer with a token it accepts, else 0 (readiness does not depend on it: Azure is shared by every replica)",
    labelNames: ["account"],
    registers: [this.registry],
  });
  /** By route template (never the raw URL: ids would make a series each), so its cardinality is the route table's. */
  readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "API request duration, from the request received to the response sent, by method, route template and status",
    labelNames: ["method", "route", "status"],
    // ?wait= holds GET /task/{id} up to 60 s; the rest answer in milliseconds.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    new Gauge({
      name: `${PREFIX}tasks_in_flight`,
      help: "Tasks running in this replica",
      registers,
      collect() {
        this.set(sources.tasksInFlight());
      },
    });
    new Gauge({
      name: `${PREFIX}throttling_budget_remaining`,
      help: "Azure's remaining throttling budget per scope and policy (x-ms-ratelimit-remaining-resource), as last reported",
      labelNames: ["scope", "policy"],
      registers,
      collect() {
        this.reset();
        for (const e of sources.throttlingBudget()) this.set({ scope: e.scope, policy: e.policy }, e.remaining);
      },
    });
    armBudgetCounters(registers, sources);
    if (sources.backlog) {
      const backlog = sources.backlog;
      // One store read serves both gauges (backlog.ts keeps the figure a second); a store that cannot answer
      // leaves them out of this scrape rather than failing it.
      const read = () => backlog().catch(() => undefined);
      new Gauge({
        name: `${PREFIX}tasks_queued`,
        help: "Tasks waiting to start, across replicas",
        registers,
        async collect() {
          this.reset();
          const b = await read();
          if (b) this.set(b.queued);
        },
      });
      new Gauge({
        name: `${PREFIX}tasks_queued_oldest_age_seconds`,
        help: "How long the oldest task waiting to start has waited",
        registers,
        async collect() {
          this.reset();
          const b = await read();
          if (b) this.set(b.oldestAgeSeconds);
        },
      });
    }
    // Explicit so the read-cache counter shows both series from the start.
    this.readCache.inc({ result: "hit" }, 0);
    this.readCache.inc({ result: "miss" }, 0);
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
  }

  /** One answered request (the onResponse hook). */
  observeResponse(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpResponses.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** Counts every ARM response (hooked into src/azure/arm-listeners.ts). */
  readonly armListener: ArmResponseListener = {
    onArmResponse: (info: ArmResponseInfo) => this.armCalls.inc({ method: info.method, status: String(info.status) }),
  };

  /** What the task runner reports. */
  taskListener(): TaskListener {
    const lroStarted = new Map<string, { kind: string; at: number }>();
    return {
      attemptEnded: (ctx: TaskEventContext, end: AttemptEnd) => {
        const account = ctx.account ?? "";
        this.attempts.inc({ operation: ctx.operation, account, outcome: end.outcome });
        if (end.outcome === "retry" && end.failure)
          this.retries.inc({
            account,
            status: end.failure.status !== undefined ? String(end.failure.status) : end.failure.kind,
          });
      },
      checkpoint: (ctx: TaskEventContext, c: Checkpoint) => {
        const started = lroStarted.get(ctx.taskId);
        if (c.inFlight && !started) lroStarted.set(ctx.taskId, { kind: c.inFlight.step.kind, at: Date.now() });
        else if (!c.inFlight && started) {
          lroStarted.delete(ctx.taskId);
          this.lroSeconds.observe({ kind: started.kind }, (Date.now() - started.at) / 1000);
        }
      },
      queueWaited: (ctx: TaskEventContext, ms: number) =>
        this.queueWaitSeconds.observe({ account: ctx.account ?? "" }, ms / 1000),
      finished: (task, outcome, failedOperation) => {
        for (const [taskId] of lroStarted) if (taskId === task.id) lroStarted.delete(taskId);
        this.#countFinished(task, outcome, failedOperation);
      },
    };
  }

  /**
   * A queued task that nobody had started, ended canceled by a cancel request (no runner sees it end): counted as
   * canceled in its first operation, as a run stopped there would be.
   */
  canceledBeforeStart(task: Pick<Task, "operations">): void {
    this.#countFinished(task, "canceled", task.operations[0]?.name);
  }

  /** A succeeded task counts each of its operations; a failed or canceled one the operation it stopped in. */
  #countFinished(
    task: Pick<Task, "operations">,
    outcome: "succeeded" | "failed" | "canceled",
    stoppedIn: string | undefined,
  ): void {
    if (outcome !== "succeeded") {
      const op = task.operations.find((o) => o.name === stoppedIn);
      this.tasks.inc({ operation: stoppedIn ?? "", account: (op && accountOfOperation(op)) ?? "", outcome });
    } else
      for (const op of task.operations)
        this.tasks.inc({ operation: op.name, account: accountOfOperation(op) ?? "", outcome });
  }
}
