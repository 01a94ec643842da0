// What a Deleter cleans once the scale set is gone (CleansUpAfterDelete: a destroy's pools on a shared balancer),
// planned on a fresh read of what it cleans at each step, each write with If-Match on the ETag just read. A failure
// (a 412: changed since the read) ends the attempt; the retry policy judges it, and the next attempt reads again.
import type { AfterAbsent } from "../planner.ts";
import { guardLabel, guardOf } from "../vmss-gateway.ts";
import type { Attempt } from "./attempt.ts";
import { harnessFailure } from "./failures.ts";

export async function cleanAfterAbsent<R>(at: Attempt<R>, afterAbsent: AfterAbsent): Promise<void> {
  const { input, attempt, prefix, clock, progress } = at;
  const { gateway, log, signal } = input;
  const ids = afterAbsent.reads();
  if (ids.length === 0) return;
  if (!gateway.readNetwork) throw new Error(`no network reads for ${gateway.ref.name}`);
  for (let writes = 0; ; writes++) {
    const step = afterAbsent.plan(await gateway.readNetwork(ids, signal));
    if (step.kind === "done") {
      log(writes === 0 ? `${prefix}: ${step.summary}` : `Azure confirmed: ${step.summary}`);
      return;
    }
    if (step.kind === "wait") throw new Error(`a clean-up after a delete does not wait: ${step.summary}`);
    if (writes >= input.planner.maxWrites)
      throw harnessFailure("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    clock.stopIfCanceled(`before writing: ${step.summary}`);
    const guard =
      step.kind === "balancerPools" ? ` (If-Match ${step.etag ?? "none"})` : guardLabel(guardOf(step.kind, undefined));
    log(`${prefix}: ${step.summary}${guard}`);
    await input.onCheckpoint?.({ attempt });
    input.beforeWrite?.();
    await gateway.write(step, undefined, {
      defaultPollIntervalMs: input.lroPollIntervalMs,
      maxPollIntervalMs: input.lroMaxPollIntervalMs,
      signal,
    });
    progress.writesEnded.push(step.summary);
  }
}
