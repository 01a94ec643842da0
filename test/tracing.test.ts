// One trace per task, as a collector receives it: the services run as child processes with
// OTEL_EXPORTER_OTLP_ENDPOINT pointed at an OTLP/HTTP receiver in this test (a small HTTP server decoding the JSON
// the exporter sends), and "Azure" (the simulator) lives in the test process. A resize is checked span by span; then
// a replica is killed mid-write and the one that takes the task over continues the same trace, linked to the first.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DatabaseSync } from "node:sqlite";
import { startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService, type ChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import type { Json } from "../testkit/json.ts";

// ---------------------------------------------------------------------------------------------------------------
// The receiver: OTLP/HTTP, JSON encoding (POST /v1/traces, an ExportTraceServiceRequest).

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  links?: { traceId: string; spanId: string; attributes?: { key: string; value: AnyValue }[] }[];
  status?: { code?: number };
}
/** A received span, its attributes as plain values, and the replica that sent it (service.instance.id). */
interface Span extends Omit<OtlpSpan, "attributes"> {
  attributes: Record<string, unknown>;
  replica: unknown;
}

const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, CONSUMER: 5 } as const;

function plain(v: AnyValue): unknown {
  if (v.arrayValue) return v.arrayValue.values.map(plain);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue;
}

function attributesOf(list: { key: string; value: AnyValue }[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

const received: Span[] = [];
const contentTypes = new Set<string>();
const receiver = createServer((req, res) => {
  void bodyOf(req).then((body) => {
    if (req.method !== "POST" || req.url !== "/v1/traces") return res.writeHead(404).end();
    contentTypes.add(String(req.headers["content-type"]));
    const request = JSON.parse(body.toString()) as {
      resourceSpans: {
        resource?: { attributes?: { key: string; value: AnyValue }[] };
        scopeSpans: { spans: OtlpSpan[] }[];
      }[];
    };
    for (const rs of request.resourceSpans) {
      const replica = attributesOf(rs.resource?.attributes)["service.instance.id"];
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) received.push({ ...s, attributes: attributesOf(s.attributes), replica });
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
t.teardown(() => new Promise((resolve) => receiver.close(resolve)));
const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

// ---------------------------------------------------------------------------------------------------------------

const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: true });
t.teardown(() => sim.close());

// Leases long enough that a loaded machine does not lose one mid-run (a run that did would start again, a second
// run span of the same trace, which the checks below allow); the crash test waits for one to end.
const env = (dataDir: string, replica: string, leaseMs = 10_000) => ({
  ...restartableServiceEnv(sim.url, dataDir),
  TASK_LEASE_MS: String(leaseMs),
  REPLICA_ID: replica,
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_BSP_SCHEDULE_DELAY: "50",
  LOG_LEVEL: "info",
});

// Each test's caller starts a trace of its own.
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CRASH_TRACE = "5bf92f3577b34da6a3ce929d0e0e4737";
const CALLER_SPAN = "00f067aa0ba902b7";

async function submitResize(
  service: ChildService,
  serverGroupName: string,
  desired: number,
  traceId: string,
): Promise<string> {
  const res = await fetch(`${service.url}/azure/ops/resizeServerGroup`, {
    method: "POST",
    headers: { "content-type": "application/json", traceparent: `00-${traceId}-${CALLER_SPAN}-01` },
    body: JSON.stringify({
      credentials: "demo",
      region: "eastus",
      serverGroupName,
      capacity: { min: 1, max: 10, desired },
    }),
  });
  t.equal(res.status, 202, "submitted");
  return ((await res.json()) as { id: string }).id;
}

/** The spans of a task's trace, once the receiver holds every one `done` asks for. */
async function spansOf(taskId: string, done: (spans: Span[]) => boolean): Promise<Span[]> {
  const run = () => received.find((s) => s.attributes["vmss.task.id"] === taskId);
  return waitFor(
    () => {
      const traceId = run()?.traceId;
      const spans = received.filter((s) => s.traceId === traceId);
      return traceId && done(spans) ? spans : undefined;
    },
    { what: `the spans of task ${taskId}`, seen: () => received.map((s) => `${s.name} ${s.traceId}`) },
  );
}

const one = (
  spans: Span[],
  name: string | RegExp,
  t: { equal: (a: unknown, b: unknown, m: string) => unknown },
): Span => {
  const found = spans.filter((s) => (typeof name === "string" ? s.name === name : name.test(s.name)));
  t.equal(found.length, 1, `one span ${String(name)}`);
  return found[0];
};

t.test("a resize is one trace: submission, run, attempt, each ARM call, the wait for the write", async (t) => {
  const a = await startChildService(env(mkdtempSync(join(tmpdir(), "vmss-ops-trace-")), "replica-a"));
  t.teardown(async () => {
    a.child.kill("SIGKILL");
    await a.exited;
  });
  const id = await submitResize(a, "web-prod-v001", 5, CALLER_TRACE);
  const task = await a.waitForTask(id);
  t.equal(task.state, "succeeded");
  t.equal(task.traceId, CALLER_TRACE, "the task body names the caller's trace (its traceparent was honoured)");
  t.match(
    task.history[0].status,
    new RegExp(`^Initializing operation: resizeServerGroup \\(trace ${CALLER_TRACE}\\)$`),
  );

  const armCalls = task.armCalls as number;
  // Every span has come once the run that succeeded has (it ends last) and every call the task counted has.
  const spans = await spansOf(
    id,
    (s) =>
      s.some((x) => x.name === "run resizeServerGroup" && x.status?.code !== 2) &&
      s.filter((x) => x.kind === SPAN_KIND.CLIENT && x.attributes["http.response.status_code"] !== undefined).length >=
        armCalls,
  );
  t.ok(contentTypes.has("application/json"), "the exporter sent OTLP/HTTP JSON");
  if (process.env.DEBUG_SPANS)
    for (const s of spans)
      t.comment(JSON.stringify([s.name, s.spanId, s.parentSpanId, s.kind, s.attributes, s.status]));
  t.ok(
    spans.every((s) => s.traceId === CALLER_TRACE),
    "every span is in the caller's trace",
  );

  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const calls = spans.filter((s) => s.kind === SPAN_KIND.CLIENT);
  const patch = calls.filter((c) => c.attributes["http.request.method"] === "PATCH");
  t.equal(patch.length, 1, "one write");
  const attempt = byId.get(patch[0].parentSpanId!)!;
  t.match(attempt?.name, /^attempt \d+$/, "the write is an attempt's");
  t.equal(attempt.attributes["vmss.attempt"], Number(attempt.name.split(" ")[1]));
  const run = byId.get(attempt.parentSpanId!)!;
  t.equal(run?.name, "run resizeServerGroup", "the attempt is the run's");
  t.equal(run.kind, SPAN_KIND.CONSUMER);
  t.match(run.attributes, { "vmss.task.id": id, "vmss.replica": "replica-a" });
  t.equal(run.replica, "replica-a", "service.instance.id names the replica");
  const submission = byId.get(run.parentSpanId!)!;
  t.equal(submission?.name, "POST /azure/ops/resizeServerGroup", "the run is the submission's");
  t.equal(submission.kind, SPAN_KIND.SERVER);
  t.equal(submission.parentSpanId, CALLER_SPAN, "the submission is a child of the caller's span");
  t.equal(submission.attributes["http.request.method"], "POST");
  t.equal(submission.attributes["http.route"], "/azure/ops/resizeServerGroup");
  t.ok(
    spans.filter((s) => s.name === "run resizeServerGroup").every((r) => r.parentSpanId === submission.spanId),
    "every run of the task is the submission's (a lease lost on a loaded machine makes another)",
  );

  const waits = spans.filter(
    (s) => s.name === "wait for the long-running operation" && s.parentSpanId === attempt.spanId,
  );
  t.equal(waits.length, 1, "the wait for the write is the attempt's");
  const answered = calls.filter((c) => c.attributes["http.response.status_code"] !== undefined);
  t.equal(answered.length, armCalls, `one client span per ARM call answered (${armCalls}, the task's count)`);
  for (const call of answered) {
    t.match(
      call.attributes,
      {
        "http.request.method": /^(GET|PATCH|PUT|POST|DELETE)$/,
        "http.response.status_code": Number,
        "url.full": new RegExp(`^${sim.url}/subscriptions/`),
        "server.address": "127.0.0.1",
        "az.service_request_id": String,
        "az.correlation_request_id": String,
      },
      `${call.name}: HTTP conventions and Azure's request ids`,
    );
    t.same(call.attributes["http.response.header.x-ms-request-id"], [call.attributes["az.service_request_id"]]);
    t.match(call.name, /^(GET|PATCH|PUT|POST|DELETE) \/subscriptions\/\{subscriptions\}\//, "a name that groups");
  }
  const polls = calls.filter((c) => c.parentSpanId === waits[0].spanId);
  t.ok(polls.length >= 1, `the polls of the write are the wait's (${polls.length})`);
  t.ok(
    polls.every((p) => p.attributes["http.request.method"] === "GET"),
    "polls are reads",
  );
  const reads = calls.filter((c) => c.parentSpanId === attempt.spanId && c.attributes["http.request.method"] === "GET");
  t.ok(reads.length >= 2, "the attempt's read and its confirmation are the attempt's");
  t.notOk(
    spans.some((s) => s.name === "wait for the ARM budget"),
    "no wait for the ARM budget: the calls were let through at once",
  );

  t.match(a.output(), new RegExp(`"trace_id":"${CALLER_TRACE}"`), "log lines carry the trace id");
});

t.test("a replica killed mid-write: the next one continues the same trace, its run linked to the first", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-trace-crash-"));
  const a = await startChildService(env(dataDir, "replica-a", 3000));
  const id = await submitResize(a, "web-prod-v002", 6, CRASH_TRACE);
  await waitForStoredPoller(dataDir, id);
  // A process killed loses the spans it has not exported yet (every 50 ms here): its submission's span is awaited
  // first, or a write accepted within 50 ms of the 202 (a quiet machine) is killed with it unsent.
  await waitFor(
    () => received.some((s) => s.traceId === CRASH_TRACE && s.name === "POST /azure/ops/resizeServerGroup"),
    { what: "replica a's submission span to be exported" },
  );
  a.child.kill("SIGKILL");
  await a.exited;
  const stored = readCheckpointTraceparent(dataDir, id);
  t.match(stored, new RegExp(`^00-${CRASH_TRACE}-[0-9a-f]{16}-01$`), "the checkpoint names the run that wrote it");

  const b = await startChildService(env(dataDir, "replica-b", 3000));
  t.teardown(async () => {
    b.child.kill("SIGKILL");
    await b.exited;
  });
  const task = await b.waitForTask(id);
  t.equal(task.state, "succeeded");
  t.equal(task.traceId, CRASH_TRACE);
  const resumedLine = task.history.find((h: Json) => /^Resumed by replica replica-b/.test(h.status));
  t.match(resumedLine?.status, new RegExp(`\\(trace ${CRASH_TRACE}\\)$`), "the resume's line names the trace");

  const isRunOfB = (x: Span) => x.name === "run resizeServerGroup" && x.replica === "replica-b";
  const spans = await spansOf(id, (s) => s.some((x) => isRunOfB(x) && x.status?.code !== 2));
  const submission = one(spans, "POST /azure/ops/resizeServerGroup", t);
  const runsOfB = spans.filter(isRunOfB);
  t.ok(
    runsOfB.every((r) => r.parentSpanId === submission.spanId && r.attributes["vmss.task.resumed"] === true),
    "replica b's run is in the task's trace, under its submission, and says it resumed",
  );
  const linked = runsOfB.find((r) => r.links?.some((l) => l.spanId === stored!.split("-")[2]));
  t.ok(linked, "b's run is linked to replica a's run, which wrote the checkpoint");
  t.equal(linked?.links?.[0].traceId, CRASH_TRACE);
  const followed = spans.filter((s) => s.replica === "replica-b" && s.name === "wait for the long-running operation");
  t.ok(followed.length >= 1, "b follows the write a sent");
  t.equal(followed[0]?.attributes["vmss.lro.resumed"], true);
  t.ok(
    runsOfB.some((r) => r.spanId === followed[0]?.parentSpanId),
    "within its run",
  );
  const patches = spans.filter((s) => s.kind === SPAN_KIND.CLIENT && s.attributes["http.request.method"] === "PATCH");
  t.ok(
    patches.every((p) => p.replica === "replica-a"),
    "the write was sent once, by replica a",
  );
});

function readCheckpointTraceparent(dataDir: string, id: string): string | undefined {
  const db = new DatabaseSync(join(dataDir, "tasks.db"));
  try {
    const row = db.prepare(`SELECT json_extract(checkpoint, '$.traceparent') AS tp FROM tasks WHERE id = ?`).get(id) as
      { tp: string | null } | undefined;
    return row?.tp ?? undefined;
  } finally {
    db.close();
  }
}

t.test("off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then nothing of the SDK is started", async (t) => {
  const { startTracing, tracingWanted } = await import("../src/tracing/sdk.ts");
  const { inSpan, currentTraceparent, tracingEnabled } = await import("../src/tracing/spans.ts");
  t.equal(tracingWanted({}), false, "no endpoint: off");
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }), true);
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }), true);
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }), false);
  t.equal(await startTracing({}, "r"), undefined, "nothing started");
  t.equal(tracingEnabled(), false);
  t.equal(await inSpan("x", {}, (span) => Promise.resolve(span)), undefined, "a span helper only runs its function");
  t.equal(currentTraceparent(), undefined, "and stores no traceparent with a task");
});
