// A planner: what an operation decides on each fresh read, and what it can do besides (its capabilities). An
// operation's file writes a ScaleSetPlanner with the capabilities it has; defineOperation hands the harness a
// Planner, where each capability is a field of its own, present or explicitly absent. Decorators (the kinds table,
// the repairs suspension) wrap a Planner field by field (wrapPlanner), so nothing is lost on the way, even from a
// planner written as a class.
import type { ArmFailure } from "./arm-failure.ts";
import type { HealthExpectation } from "./health-read.ts";
import type { NetworkRead, ScaleSetSnapshot, WriteStep } from "./vmss-gateway.ts";

/** Writes that one attempt may make while converging (disable is a network change, then a rollout). */
export const MAX_WRITES_PER_ATTEMPT = 4;

/**
 * What a planner asks for: nothing more to do, a write, or to wait and plan again on a fresh read (the state is
 * moving toward the goal without us: new instances are starting, a health probe has not yet seen them).
 */
export type PlannedStep = { kind: "done"; summary: string } | WaitStep | WriteStep;

/**
 * Wait, and plan again on a fresh read. `expect`: a wait for health says when it can first be reported and how often
 * it can change after (the re-reads go there: health-read.ts); absent, the re-reads keep the busy pace.
 */
export interface WaitStep {
  kind: "wait";
  summary: string;
  expect?: HealthExpectation;
}

/**
 * What every operation supplies: a plan against fresh state, and a result from the state Azure confirmed. What only
 * some operations can do is a capability of its own (below): an operation's planner declares those it has, and
 * plannerOf turns it into a Planner, where every capability is a field the harness reads.
 */
export interface ScaleSetPlanner<R> {
  /** The plan needs the VM list, not only the scale set. */
  readsInstances: boolean;
  plan(snapshot: ScaleSetSnapshot): PlannedStep;
  /** The result, from a read of the scale set and its VMs: confirmed, or (when the operation fails) not. */
  result(snapshot: ScaleSetSnapshot): R;
}

/**
 * An operation that makes the scale set (create): the write to send when a read answers 404. It is sent with
 * If-None-Match: *, so that a name taken meanwhile answers 412 (re-read, and plan() judges what is there).
 */
export interface Creator {
  createWhenMissing(): WriteStep;
}

/**
 * An operation whose goal is that the scale set not exist (destroy): Azure answered 404 for it, so the goal is
 * reached. `wrote`: this operation had a write accepted (its own delete), as opposed to finding it gone. Without
 * this capability, 404 is a terminal failure.
 */
export interface Deleter<R> {
  whenAbsent(absent: { failure: ArmFailure; wrote: boolean }): R;
}

/**
 * A Deleter that, once the scale set is gone, removes what was made for it elsewhere (a destroy: the pools its create
 * added to a shared load balancer, which Azure refuses to remove while the scale set names them). Every attempt that
 * finds the scale set absent reads `reads()` afresh and plans on them, as on a scale set: a write carries If-Match
 * on the ETag read (412: the next attempt reads and plans again); "done" ends the operation (whenAbsent).
 */
export interface CleansUpAfterDelete {
  afterAbsent: AfterAbsent;
}

export interface AfterAbsent {
  /** The network resources to read (ids): none, nothing to clean. */
  reads(): string[];
  plan(read: NetworkRead[]): PlannedStep;
}

/** An operation that replaces in batches: more writes in one attempt than MAX_WRITES_PER_ATTEMPT. */
export interface BatchWriter {
  maxWrites: number;
}

/**
 * An operation whose goal is not a number of running instances (disable, enable, terminate): instances Azure lists
 * as provisioned but not running (a Spot eviction deallocates them) do not keep it from its goal. They are still
 * reported, and still not counted as running. Without this capability, such instances end the operation
 * unconfirmed, with what runs.
 */
export interface StoppedInstancesAccepted {
  acceptsStopped: boolean;
}

/**
 * An operation that, when it fails after a write of it was accepted, reads the scale set and its VMs once more and
 * attaches result() of that read to the failure: what Azure did bring up (a create that ran out of allocation).
 */
export interface ResultOnFailure {
  resultOnFailure: boolean;
}

/**
 * An operation whose plan learns what a process taking over must know too (JSON; e.g. why a rolling upgrade stopped
 * surging): written with every checkpoint, and given back to the planner of the run that resumes it.
 */
export interface Remembering {
  memory(): unknown;
}

/**
 * An operation that makes a temporary change to Azure (automatic repairs suspended): what to write when it ends
 * without reaching done (it failed, or was canceled), to undo it. Planned on fresh reads, a few writes at most,
 * each logged; a failure here is logged and the operation's own failure stands. Not run when the task is
 * interrupted (shutdown, lease lost): the next owner goes on with the operation, and ends it.
 */
export interface Releaser {
  release(snapshot: ScaleSetSnapshot): PlannedStep;
}

/**
 * An operation whose plan needs the Azure Monitor autoscale setting that targets the scale set (resize writes the
 * bounds there): every read of an attempt reads it too (ScaleSetSnapshot.autoscale).
 */
export interface ReadsAutoscale {
  readsAutoscale: boolean;
}

/**
 * A disable that leaves the group serving (a share of it out of traffic: Orca's rolling red/black): the autoscale
 * setting is left as it is, as AWS suspends a group's scaling only when the group is disabled whole.
 */
export interface LeavesAutoscale {
  leavesAutoscale: boolean;
}

/** A planner as an operation's file writes it: plan and result, and any of the capabilities above. */
export type PlannerSpec<R> = ScaleSetPlanner<R> &
  Partial<
    Creator &
      Deleter<R> &
      BatchWriter &
      StoppedInstancesAccepted &
      ResultOnFailure &
      Remembering &
      Releaser &
      ReadsAutoscale &
      LeavesAutoscale &
      CleansUpAfterDelete
  >;

/** A planner as the harness reads it: every capability a field, undefined (or false) where the operation has none. */
export interface Planner<R> {
  readsInstances: boolean;
  /** Bound functions, not methods: a field can be carried to another Planner as it is. */
  plan: (snapshot: ScaleSetSnapshot) => PlannedStep;
  result: (snapshot: ScaleSetSnapshot) => R;
  /** Creator: undefined, a 404 is not answered by a create. */
  createWhenMissing: (() => WriteStep) | undefined;
  /** Deleter: undefined, a 404 is a terminal failure. */
  whenAbsent: ((absent: { failure: ArmFailure; wrote: boolean }) => R) | undefined;
  /** BatchWriter: MAX_WRITES_PER_ATTEMPT when the operation did not say. */
  maxWrites: number;
  /** StoppedInstancesAccepted. */
  acceptsStopped: boolean;
  /** ResultOnFailure. */
  resultOnFailure: boolean;
  /** Remembering: undefined, nothing is written with the checkpoints. */
  memory: (() => unknown) | undefined;
  /** Releaser: undefined, nothing to undo when the operation ends unfinished. */
  release: ((snapshot: ScaleSetSnapshot) => PlannedStep) | undefined;
  /** ReadsAutoscale. */
  readsAutoscale: boolean;
  /** LeavesAutoscale. */
  leavesAutoscale: boolean;
  /** CleansUpAfterDelete: undefined, nothing to clean once the scale set is gone. */
  afterAbsent: AfterAbsent | undefined;
}

/** The planner an operation's file wrote, with each capability read once into its field (methods stay bound). */
export function plannerOf<R>(spec: PlannerSpec<R>): Planner<R> {
  return {
    readsInstances: spec.readsInstances,
    plan: (snapshot) => spec.plan(snapshot),
    result: (snapshot) => spec.result(snapshot),
    createWhenMissing: spec.createWhenMissing?.bind(spec),
    whenAbsent: spec.whenAbsent?.bind(spec),
    maxWrites: spec.maxWrites ?? MAX_WRITES_PER_ATTEMPT,
    acceptsStopped: spec.acceptsStopped === true,
    resultOnFailure: spec.resultOnFailure === true,
    memory: spec.memory?.bind(spec),
    release: spec.release?.bind(spec),
    readsAutoscale: spec.readsAutoscale === true,
    leavesAutoscale: spec.leavesAutoscale === true,
    afterAbsent: spec.afterAbsent,
  };
}

/** The planner with some of its fields replaced: the rest carried over one by one, so that none is dropped. */
export function wrapPlanner<R>(inner: Planner<R>, change: Partial<Planner<R>>): Planner<R> {
  return {
    readsInstances: change.readsInstances ?? inner.readsInstances,
    plan: change.plan ?? inner.plan,
    result: change.result ?? inner.result,
    createWhenMissing: change.createWhenMissing ?? inner.createWhenMissing,
    whenAbsent: change.whenAbsent ?? inner.whenAbsent,
    maxWrites: change.maxWrites ?? inner.maxWrites,
    acceptsStopped: change.acceptsStopped ?? inner.acceptsStopped,
    resultOnFailure: change.resultOnFailure ?? inner.resultOnFailure,
    memory: change.memory ?? inner.memory,
    release: change.release ?? inner.release,
    readsAutoscale: change.readsAutoscale ?? inner.readsAutoscale,
    leavesAutoscale: change.leavesAutoscale ?? inner.leavesAutoscale,
    afterAbsent: change.afterAbsent ?? inner.afterAbsent,
  };
}
