// The shape of an operation: its description schema, the cross-field checks a schema cannot express, and a
// planner that the executeOp harness runs against freshly read state on every attempt.
import type { Static, TObject } from "@sinclair/typebox";
import { plannerOf, type Planner, type PlannerSpec } from "../azure/planner.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { RetryConfig } from "../azure/retry-policy.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { FieldProblem, ServerGroupLocator } from "./description.ts";
import type { OperationResult } from "./server-group-state.ts";
import { kindGuard } from "./scale-set-kinds.ts";
import type { OperationName } from "./operation-names.ts";
import { withAutoscalePolicy } from "./autoscale-suspension.ts";

export interface OperationDefinition<S extends TObject = TObject, R extends OperationResult = OperationResult> {
  /** Clouddriver's operation name: the key in POST /azure/ops bodies and the last segment of /azure/ops/{name}. */
  name: string;
  /** One line for the OpenAPI document. */
  summary: string;
  /** The description schema; its $id names the component in the OpenAPI document. */
  schema: S;
  /** Rules across fields; each problem becomes part of a 400. */
  check?(description: Static<S>): FieldProblem[];
  /** "resize web-prod-v001 to 5": the task's first history line. */
  describe(description: Static<S>): string;
  /**
   * For an operation whose scale set is named when it runs (create: the next free name of a cluster): what locates
   * it before that, for account checks and for the order of tasks (the cluster stands in for the name).
   */
  locator?(description: Static<S>): LocatedDescription;
  /**
   * For an operation whose description may leave its scale set unnamed (its locator reads it from the VM names it
   * acts on): whether Azure confirms, at submission, that what the locator read is so. Undefined when it does, else
   * what was looked for and not found; a failed read is thrown. Called only when the description names no scale set.
   */
  confirmLocated?(description: Static<S>, target: ScaleSetRef, context: ConfirmContext): Promise<string | undefined>;
  /**
   * Under `Prefer: handling=strict`: what the operation would not do as sent, read from Azure at submission (a
   * clone's fields that Azure never returns on a read and the body does not give). Each problem is part of the 400,
   * answered before the task exists; a failed read is thrown.
   */
  strictProblems?(description: Static<S>, context: StrictContext): Promise<FieldProblem[]>;
  /**
   * Chooses the scale set when the operation starts (and again after a restart, or when the name chosen turned out
   * taken), from what Azure lists then. Its context goes to the planner.
   */
  prepare?(description: Static<S>, context: PrepareContext): Promise<Prepared>;
  /** The operation's planner, with the capabilities it has (PlannerSpec). */
  planner: (description: Static<S>, target: ScaleSetRef, run?: RunContext) => PlannerSpec<R>;
}

/** An operation as defineOperation makes it: its planner a Planner, every capability a field, behind the kinds table. */
export type DefinedOperation<S extends TObject = TObject, R extends OperationResult = OperationResult> = Omit<
  OperationDefinition<S, R>,
  "planner"
> & {
  planner: (description: Static<S>, target: ScaleSetRef, run?: RunContext) => Planner<R>;
};

/** The code a create fails with when the name it chose holds a scale set it did not create: choose again. */
export const NAME_TAKEN = "ServerGroupNameTaken";

/** Which request a task runs: a create records it on the scale set it makes, so that a repeat finds it. */
export interface TaskOrigin {
  taskId: string;
  clientRequestId?: string;
}

export interface ConfirmContext {
  accounts: Pick<AccountRegistry, "gateway">;
  /** The read's retry profile (readRetry): someone waits for the answer. */
  retry: RetryConfig;
  signal?: AbortSignal;
}

export interface StrictContext {
  accounts: Pick<AccountRegistry, "locate" | "gateway">;
  /** The read's retry profile (readRetry): someone waits for the answer. */
  retry: RetryConfig;
  signal?: AbortSignal;
}

export interface PrepareContext {
  accounts: Pick<AccountRegistry, "locate" | "get" | "client" | "gateway" | "autoscale">;
  origin: TaskOrigin;
  log(line: string): void;
  signal?: AbortSignal;
  /** A dry run's prepare: it reads, and says what it would write instead of writing it. */
  dryRun?: true;
}

export interface Prepared {
  serverGroupName: string;
  /** What prepare learned that the planner needs (a clone's source model, the ancestor). */
  context: unknown;
}

export interface RunContext {
  origin: TaskOrigin;
  prepared?: Prepared;
  /** The planner's memory from the checkpoint of an earlier run of this operation (ScaleSetPlanner.memory). */
  memory?: unknown;
}

/**
 * Keeps each operation file's types exact while the registry holds them side by side, and puts the table of
 * supported scale-set kinds (scale-set-kinds.ts) in front of every planner: each plan is made only after it.
 */
export function defineOperation<N extends OperationName, S extends TObject, R extends OperationResult>(
  definition: OperationDefinition<S, R> & { name: N },
): DefinedOperation<S, R> & { name: N } {
  const planner = definition.planner;
  return {
    ...definition,
    planner: (description, target, run) =>
      kindGuard(
        definition.name,
        withAutoscalePolicy(definition.name, plannerOf(planner(description, target, run))),
        target,
        run?.origin.taskId,
      ),
  };
}

export type AnyOperation = DefinedOperation<TObject, OperationResult> & { schema: TObject };
export type LocatedDescription = ServerGroupLocator & Record<string, unknown>;
