// What a task's history says about where it is, for the status page: the attempt in the harness's own count
// ("attempt k/n", as execute-op.ts writes it, so the page and the history never disagree), the step of a list of
// operations or of a rolling upgrade's batches, what it waits for and until when, and a picture of its attempts,
// waits and writes over time. Pure: the history and the time in, the view out.
import { COMPLETED } from "../tasks/task-outcome.ts";
import type { Task } from "../tasks/task.ts";

/**
 * Lines the harness writes within an attempt start with this (src/azure/harness/attempt.ts attemptPrefix:
 * `attempt ${attempt}/${maxAttempts}`).
 */
const ATTEMPT_LINE = /^attempt (\d+)\/(\d+): (.*)$/s;
/** A retry's line ends with the backoff (retry-policy.ts: `retrying in ${formatDuration(delayMs)}`). */
const RETRYING_IN = /retrying in ([\d.]+) (s|min)$/;
/** A write's line names its precondition (execute-op.ts writeThenRead). */
const WRITE = /\((If-Match [^)]*|If-None-Match \*)\)$/;
/** A wait for Azure or another writer, as the harness and the planners say it. */
const WAITING = /waiting for /;
/** Another writer holds the scale set (src/azure/harness/reads.ts settledRead). */
const BUSY = /^(\S+) is (\w+) \(another write in flight\)/;
/** A rolling upgrade's position (rolling-upgrade.ts: `batch ${batch}/${batches}`). */
const BATCH = /\bbatch (\d+)\/(\d+)\b/;

export type SegmentKind = "queued" | "attempt" | "write" | "wait" | "backoff";

export interface Segment {
  kind: SegmentKind;
  fromMs: number;
  /** Absent while it goes on. */
  toMs?: number;
  /** The attempt a segment belongs to (attempt, write, wait, backoff). */
  attempt?: number;
  /** How the attempt ended: retry or failed (absent while it runs, or when it succeeded). */
  ended?: "retry" | "failed";
  label: string;
}

export interface TaskTimeline {
  /** The attempt running now, or the last one, in the harness's own count; absent before the first. */
  attempt?: { number: number; of: number };
  /** Where a task of several operations is, or a rolling upgrade among its batches. */
  step?: { number: number; of: number; unit: "operation" | "batch"; name?: string };
  /** What it waits for now and, when known, until when. */
  waiting?: { for: string; sinceMs: number; untilMs?: number };
  /** In a backoff between attempts: failed is not the word for it. */
  retrying: boolean;
  /** The last line that says something about the outcome ("Orchestration completed." says nothing more). */
  summary: string;
  segments: Segment[];
}

function durationMs(amount: string, unit: string): number {
  return Math.round(Number(amount) * (unit === "min" ? 60_000 : 1000));
}

type TimelineTask = Pick<
  Task,
  "state" | "history" | "operations" | "operationIndex" | "createdAtMs" | "finishedAtMs" | "checkpoint"
>;

export function taskTimeline(task: TimelineTask, nowMs: number): TaskTimeline {
  const read = readHistory(task);
  const now = ongoing(task, read, nowMs);
  const step = stepOf(task, read.batch);
  const telling = [...task.history].reverse().find((h) => h.status !== COMPLETED);
  return {
    ...(now.attempt ? { attempt: now.attempt } : {}),
    ...(step ? { step } : {}),
    ...(now.waiting ? { waiting: now.waiting } : {}),
    retrying: now.retrying,
    summary: telling?.status ?? "",
    segments: read.segments,
  };
}

/** What the history lines say, in order: the segments, the last attempt, and the last batch named. */
interface HistoryRead {
  segments: Segment[];
  attempt: TaskTimeline["attempt"];
  batch: { number: number; of: number } | undefined;
}

function readHistory(task: TimelineTask): HistoryRead {
  const history = task.history;
  const ended = task.finishedAtMs !== undefined;
  const segments: Segment[] = [queuedSegment(task)];
  let attempt: TaskTimeline["attempt"];
  let batch: { number: number; of: number } | undefined;
  let open: Segment | undefined; // the write or wait under way, closed by the next line
  let current: Segment | undefined; // the attempt under way
  // An attempt begins when its operation starts or its backoff ends (it reads before it writes its first line).
  let attemptStart: number | undefined;

  for (const line of history) {
    close(open, line.timeMs);
    open = undefined;
    const b = BATCH.exec(line.status);
    if (b) batch = { number: Number(b[1]), of: Number(b[2]) };
    const m = ATTEMPT_LINE.exec(line.status);
    if (!m) {
      // A line outside any attempt (Starting, Done, a resumed write…) ends the attempt under way.
      if (/^(Starting|Done|Resumed|Canceled)/.test(line.status) || line.phase === "ORCHESTRATION") {
        close(current, line.timeMs);
        current = undefined;
        attemptStart = /^(Starting|Resumed)/.test(line.status) ? line.timeMs : undefined;
      }
      continue;
    }
    const number = Number(m[1]);
    const of = Number(m[2]);
    const rest = m[3];
    attempt = { number, of };
    if (!current || current.attempt !== number) {
      close(current, line.timeMs);
      const from = attemptStart !== undefined && attemptStart <= line.timeMs ? attemptStart : line.timeMs;
      current = { kind: "attempt", fromMs: from, attempt: number, label: `attempt ${number}/${of}` };
      attemptStart = undefined;
      segments.push(current);
    }
    const retry = RETRYING_IN.exec(rest);
    if (retry) {
      current.ended = "retry";
      current.label = `attempt ${number}/${of}: ${rest}`;
      close(current, line.timeMs);
      const until = line.timeMs + durationMs(retry[1], retry[2]);
      segments.push({
        kind: "backoff",
        fromMs: line.timeMs,
        toMs: until,
        attempt: number,
        label: `backoff before attempt ${number + 1}: ${rest}`,
      });
      current = undefined;
      attemptStart = until;
    } else if (WRITE.test(rest) || WAITING.test(rest)) {
      open = { kind: WRITE.test(rest) ? "write" : "wait", fromMs: line.timeMs, attempt: number, label: rest };
      segments.push(open);
    } else if (
      /; (gave up after|not retryable|not found|the .* deadline would pass)/.test(rest) ||
      (ended && task.state === "failed" && line === history.at(-1))
    ) {
      current.ended = "failed";
      current.label = `attempt ${number}/${of}: ${rest}`;
    }
  }
  if (task.finishedAtMs !== undefined) {
    close(open, task.finishedAtMs);
    close(current, task.finishedAtMs);
  }
  return { segments, attempt, batch };
}

/** Ends a segment still open. */
function close(s: Segment | undefined, at: number): void {
  if (s && s.toMs === undefined) s.toMs = at;
}

/** From submission to the first line of a run (or to the end, for a task that never ran). */
function queuedSegment(task: TimelineTask): Segment {
  const { history } = task;
  const firstRun = history.findIndex((h) => h.phase !== "INIT" && h.phase !== "ORCHESTRATION");
  const startedAt = firstRun >= 0 ? history[firstRun].timeMs : undefined;
  return {
    kind: "queued",
    fromMs: task.createdAtMs,
    ...(startedAt !== undefined || task.finishedAtMs !== undefined ? { toMs: startedAt ?? task.finishedAtMs } : {}),
    label: "queued",
  };
}

/** Now: a backoff whose time has not come, a wait or write under way, or a write Azure accepted (the checkpoint). */
function ongoing(
  task: TimelineTask,
  { segments, attempt }: HistoryRead,
  nowMs: number,
): Pick<TaskTimeline, "attempt" | "waiting" | "retrying"> {
  if (task.finishedAtMs !== undefined) return { attempt, retrying: false };
  const last = segments.at(-1);
  if (last?.kind === "backoff" && (last.toMs ?? 0) > nowMs) {
    const waiting = {
      for: `the backoff before attempt ${(last.attempt ?? 0) + 1}`,
      sinceMs: last.fromMs,
      ...(last.toMs !== undefined ? { untilMs: last.toMs } : {}),
    };
    return { attempt, waiting, retrying: true };
  }
  if (last?.kind === "backoff" && attempt) {
    // The backoff is over: the next attempt reads before it writes a line of its own.
    return { attempt: { number: attempt.number + 1, of: attempt.of }, retrying: true };
  }
  if (last && (last.kind === "wait" || last.kind === "write") && last.toMs === undefined) {
    const inFlight = task.checkpoint?.inFlight;
    const busy = BUSY.exec(last.label);
    const what =
      last.kind === "write"
        ? `Azure to carry out: ${inFlight?.step.summary ?? last.label}`
        : busy
          ? `another write on ${busy[1]} to end (it is ${busy[2]})`
          : last.label.replace(/^.*?waiting for /, "");
    return { attempt, waiting: { for: what, sinceMs: last.fromMs }, retrying: false };
  }
  if (task.state === "queued") {
    const waiting = {
      for: "a replica to take it (or an earlier task on its scale set to end)",
      sinceMs: task.createdAtMs,
    };
    return { attempt, waiting, retrying: false };
  }
  return { attempt, retrying: false };
}

/** Where a task of several operations is, or a rolling upgrade among its batches. */
function stepOf(task: TimelineTask, batch: HistoryRead["batch"]): TaskTimeline["step"] {
  if (batch && task.operations[task.operationIndex]?.name === "rollingUpgrade") return { ...batch, unit: "batch" };
  if (task.operations.length <= 1) return undefined;
  return {
    number: Math.min(task.operationIndex + 1, task.operations.length),
    of: task.operations.length,
    unit: "operation",
    name: task.operations[Math.min(task.operationIndex, task.operations.length - 1)]?.name,
  };
}
