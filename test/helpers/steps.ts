// A planned step as the kind a test expects, typed as that kind: a step of another kind fails the test and says
// what it was instead.
import type { PlannedStep } from "../../src/azure/planner.ts";

export function stepOfKind<K extends PlannedStep["kind"]>(
  step: PlannedStep,
  kind: K,
): Extract<PlannedStep, { kind: K }> {
  if (step.kind !== kind) throw new Error(`expected a ${kind} step, got ${step.kind}: ${step.summary}`);
  return step as Extract<PlannedStep, { kind: K }>;
}
