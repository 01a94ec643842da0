// A planner's release: what an operation that ends failed or canceled undoes (repairs suspended for its duration).
import { describeArmFailure, failureLabel } from "../arm-failure.ts";
import type { PlannedStep } from "../planner.ts";
import type { ScaleSetSnapshot } from "../vmss-gateway.ts";
import type { HarnessInput } from "./input.ts";

/** Writes that release() may make when an operation ends failed or canceled. */
const MAX_RELEASE_WRITES = 3;

/** The planner's release, on fresh reads: best effort, every step and every failure logged. */
export async function releaseWhatTheOperationHeld<R>(
  input: HarnessInput<R>,
  plan: (snapshot: ScaleSetSnapshot) => PlannedStep,
): Promise<void> {
  const { gateway, log, signal } = input;
  try {
    for (let writes = 0; writes < MAX_RELEASE_WRITES; writes++) {
      const snapshot = await gateway.read({
        withInstances: true,
        withAutoscale: input.planner.readsAutoscale,
        signal,
      });
      const step = plan(snapshot);
      if (step.kind === "done" || step.kind === "wait") return;
      log(`the operation ended unfinished: ${step.summary}`);
      input.beforeWrite?.();
      await gateway.write(step, snapshot.etag, { defaultPollIntervalMs: input.lroPollIntervalMs, signal });
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    const f = describeArmFailure(err);
    if (f.kind === "notFound") return; // the scale set is gone: nothing of it to undo
    log(
      `could not undo what the operation changed on ${gateway.ref.name} for its duration (${failureLabel(f)}: ${f.message}); undo it by hand`,
    );
  }
}
