// This replica's link to Azure: every ARM call has a deadline, and what the calls meet (an answer, or none) says
// whether the link works. A replica whose calls all go unanswered stops claiming tasks and, past a bound, hands back
// those it holds, so that a replica that can reach Azure goes on with them from their checkpoints
// (tasks/task-runner.ts acts on the judgement; judgeArmLink decides it).
import type { PipelinePolicy, PipelineRequest } from "@azure/core-rest-pipeline";
import { describeArmFailure } from "./arm-failure.ts";

export interface ArmLinkConfig {
  /**
   * A GET to ARM (a read, a long-running operation's poll, a probe) that has not answered within this long fails as a
   * network error (ArmCallTimeout), retried by the retry policy.
   * @env ARM_READ_TIMEOUT_MS
   * @default `10000`
   */
  readTimeoutMs: number;
  /**
   * A write to ARM (PUT, PATCH, POST, DELETE) that has not answered within this long fails as a network error
   * (ArmCallTimeout): the next attempt re-reads and re-plans, as after any write whose answer was lost.
   * @env ARM_WRITE_TIMEOUT_MS
   * @default `30000`
   */
  writeTimeoutMs: number;
  /**
   * Calls in a row that get no answer (a deadline passed, a connection refused or reset) before this replica stops
   * claiming tasks.
   * @env ARM_LINK_FAILURES
   * @default `3`
   */
  failuresToStopClaiming: number;
  /**
   * How long after the first of those calls, with no answer since, this replica hands back the tasks it holds.
   * @env ARM_LINK_RELEASE_AFTER_MS
   * @default `10000`
   */
  releaseAfterMs: number;
}

export const DEFAULT_ARM_LINK: ArmLinkConfig = {
  readTimeoutMs: 10_000,
  writeTimeoutMs: 30_000,
  failuresToStopClaiming: 3,
  releaseAfterMs: 10_000,
};

/** An ARM call that did not answer within its deadline: classified as a network error (arm-failure.ts). */
export class ArmCallTimeoutError extends Error {
  override name = "ArmCallTimeoutError";
  readonly code = "ArmCallTimeout";
  constructor(method: string, timeoutMs: number) {
    super(`${method} to ARM did not answer within ${timeoutMs} ms`);
  }
}

/** The deadline of one ARM call: a GET (a read, a poll) has the read deadline, anything else the write deadline. */
export function armCallDeadlineMs(method: string, config: Pick<ArmLinkConfig, "readTimeoutMs" | "writeTimeoutMs">) {
  return method.toUpperCase() === "GET" || method.toUpperCase() === "HEAD"
    ? config.readTimeoutMs
    : config.writeTimeoutMs;
}

/** What the calls of this replica have met so far: what judgeArmLink decides from. */
export interface ArmLinkFacts {
  /** Calls in a row, up to now, that got no answer. */
  unansweredInARow: number;
  /** Date.now() when the first of them was seen to fail; undefined while the last call was answered. */
  unansweredSinceMs: number | undefined;
}

export type ArmLinkState = "up" | "doubtful" | "cut";

export interface ArmLinkJudgement {
  /** up: answers come; doubtful: too many calls in a row got none, tasks held are kept a while; cut: handed back. */
  state: ArmLinkState;
  /** Whether this replica claims new tasks. */
  claim: boolean;
  /** Whether it hands back the tasks it holds. */
  release: boolean;
}

/**
 * Whether this replica's link to Azure works, and what it does about it: a single call without an answer says
 * little (a slow answer, a reset connection), so claiming stops only after `failuresToStopClaiming` in a row, and the
 * tasks held (whose leases the store would otherwise keep renewing, while they make no progress) are handed back only
 * once no answer has come for `releaseAfterMs` since the first of them. Any answer, even an error status, says the
 * link works.
 */
export function judgeArmLink(
  facts: ArmLinkFacts,
  nowMs: number,
  config: Pick<ArmLinkConfig, "failuresToStopClaiming" | "releaseAfterMs">,
): ArmLinkJudgement {
  if (facts.unansweredInARow < config.failuresToStopClaiming || facts.unansweredSinceMs === undefined)
    return { state: "up", claim: true, release: false };
  if (nowMs - facts.unansweredSinceMs < config.releaseAfterMs)
    return { state: "doubtful", claim: false, release: false };
  return { state: "cut", claim: false, release: true };
}

/** A change of the link's state, as the calls show it: for the log. */
export type ArmLinkChange =
  { state: "unanswered"; code: string; inARow: number } | { state: "answered"; silentForMs: number };

/** What this replica's ARM calls met: fed by armLinkPolicy, read by the runner's loop. */
export class ArmLink {
  readonly config: ArmLinkConfig;
  #unansweredInARow = 0;
  #unansweredSinceMs: number | undefined;
  /** Told when the first call after an answer goes unanswered, and when an answer comes after one that did not. */
  onChange: ((change: ArmLinkChange) => void) | undefined;

  constructor(config: ArmLinkConfig = DEFAULT_ARM_LINK) {
    this.config = config;
  }

  answered(nowMs = Date.now()): void {
    const since = this.#unansweredSinceMs;
    this.#unansweredInARow = 0;
    this.#unansweredSinceMs = undefined;
    if (since !== undefined) this.onChange?.({ state: "answered", silentForMs: nowMs - since });
  }

  unanswered(code: string, nowMs = Date.now()): void {
    this.#unansweredInARow++;
    if (this.#unansweredSinceMs === undefined) {
      this.#unansweredSinceMs = nowMs;
      this.onChange?.({ state: "unanswered", code, inARow: this.#unansweredInARow });
    }
  }

  get facts(): ArmLinkFacts {
    return { unansweredInARow: this.#unansweredInARow, unansweredSinceMs: this.#unansweredSinceMs };
  }

  judge(nowMs = Date.now()): ArmLinkJudgement {
    return judgeArmLink(this.facts, nowMs, this.config);
  }
}

/** The request's own signal (a task's interrupt) and the deadline's, as one: aborting either tears the call down. */
function withDeadline(request: PipelineRequest, deadline: AbortController): void {
  const own = request.abortSignal as AbortSignal | undefined;
  request.abortSignal = own ? AbortSignal.any([own, deadline.signal]) : deadline.signal;
}

/**
 * Gives every ARM call its deadline (armCallDeadlineMs), and tells `link` what each met. Placed last before the
 * transport: a wait for the ARM budget or for a task's turn is not the call's time. Only a call that got no answer
 * counts against the link (its deadline, a network failure); one aborted by its caller counts for nothing.
 */
export function armLinkPolicy(link: ArmLink): PipelinePolicy {
  return {
    name: "vmssOpsArmLink",
    async sendRequest(request, next) {
      const timeoutMs = armCallDeadlineMs(request.method, link.config);
      const deadline = new AbortController();
      const caller = request.abortSignal as AbortSignal | undefined;
      withDeadline(request, deadline);
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      try {
        const response = await next(request);
        link.answered();
        return response;
      } catch (err) {
        const timedOut = deadline.signal.aborted && !caller?.aborted;
        const failure = timedOut ? new ArmCallTimeoutError(request.method, timeoutMs) : err;
        if ((err as { response?: unknown }).response !== undefined) link.answered();
        else if (describeArmFailure(failure).kind === "network")
          link.unanswered(describeArmFailure(failure).code ?? "");
        throw failure;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
