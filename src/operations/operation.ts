// The shape of an operation: its description schema, the cross-field checks a schema cannot express, and a
// planner that the executeOp harness runs against freshly read state on every attempt.
import type { Static, TObject } from "@sinclair/typebox";
import type { ScaleSetPlanner } from "../azure/execute-op.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { FieldProblem, ServerGroupLocator } from "./description.ts";
import type { OperationResult } from "./server-group-state.ts";

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
  planner(description: Static<S>, target: ScaleSetRef): ScaleSetPlanner<R>;
}

/** Keeps each operation file's types exact while the registry holds them side by side. */
export function defineOperation<S extends TObject, R extends OperationResult>(definition: OperationDefinition<S, R>): OperationDefinition<S, R> {
  return definition;
}

export type AnyOperation = OperationDefinition<TObject, OperationResult> & { schema: TObject };
export type LocatedDescription = ServerGroupLocator & Record<string, unknown>;
