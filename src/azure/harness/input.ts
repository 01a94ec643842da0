// What executeOp is given, what it tells its caller (checkpoints, how each attempt ended), and the input as the
// harness's pieces read it.
import type { RetryConfig } from "../retry-policy.ts";
import type { ArmFailure } from "../arm-failure.ts";
import type { ScaleSetGateway, StoredWriteStep, WriteKind } from "../vmss-gateway.ts";
import type { Planner, PlannerSpec } from "../planner.ts";

export interface Checkpoint {
  attempt: number;
  /** The write in flight and its serialized poller, when one was accepted and has not ended. */
  inFlight?: { step: StoredWriteStep; poller: string };
  /** The planner's memory (Remembering.memory), when it has one. */
  planner?: unknown;
}

/** How one attempt ended: for metrics and logs (the retry decision itself stays in retry-policy.ts). */
export interface AttemptEnd {
  attempt: number;
  outcome: "succeeded" | "retry" | "failed";
  failure?: ArmFailure;
}

export interface ExecuteOpInput<R> {
  gateway: ScaleSetGateway;
  /** The operation's planner; read once into its fields (plannerOf). */
  planner: PlannerSpec<R>;
  retry: RetryConfig;
  lroPollIntervalMs: number;
  /** The longest wait between polls of a write, whatever Azure advertised (default 120 s). */
  lroMaxPollIntervalMs?: number;
  /** One line for a person, added to the task's history. */
  log: (line: string) => void;
  onCheckpoint?: (checkpoint: Checkpoint) => void | Promise<void>;
  /** Told how every attempt ended. */
  onAttemptEnd?: (end: AttemptEnd) => void;
  /** A write accepted before a restart: follow it to its end before the first read, instead of writing again. */
  resume?: { step: { kind: WriteKind; summary: string }; poller: string };
  /** Interrupts at once, even mid-write (shutdown, lease lost): the checkpoint says how to go on. */
  signal?: AbortSignal;
  /**
   * Asks to stop at the next safe point: before an attempt, during a backoff or a wait for another writer, before a
   * write, or once a write in flight has ended. Never mid-write: a write Azure accepted is followed to its end.
   */
  cancel?: AbortSignal;
  /**
   * Asked right before each write is sent; throws to keep it from being sent (the task's lease ended by this
   * replica's clock: another replica may be writing the scale set now). The run's signal is aborted by then.
   */
  beforeWrite?: () => void;
  random?: () => number;
  now?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

/** The input as the harness's pieces read it: the planner with every capability a field. */
export type HarnessInput<R> = Omit<ExecuteOpInput<R>, "planner"> & { planner: Planner<R> };
