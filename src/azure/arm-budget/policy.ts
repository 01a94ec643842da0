// The ARM budget as a pipeline policy of the SDK's client: every request asks the budget before it is sent.
import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import { armCallWaiting } from "../arm-listeners.ts";
import type { ArmBudget } from "./budget.ts";
import { chargeOf } from "./routes.ts";

/**
 * The pipeline policy: every request takes from its buckets before it is sent (per retry: a retry is another call
 * Azure counts), and its answer corrects them. A call made for a task is a task's (see armCallWaiting).
 */
export function armBudgetPolicy(budget: ArmBudget): PipelinePolicy {
  return {
    name: "vmssOpsArmBudget",
    async sendRequest(request, next) {
      const call = chargeOf(request, budget.figures);
      if (!call) return next(request);
      const waiting = armCallWaiting();
      try {
        await budget.acquire(call, waiting ? "task" : "cache", waiting, request.abortSignal as AbortSignal | undefined);
      } catch (err) {
        budget.release();
        throw err;
      }
      try {
        const response = await next(request);
        await budget.answered(call, response.status, response.headers);
        return response;
      } catch (err) {
        const response = (err as { response?: { status: number; headers: { get(name: string): string | undefined } } })
          .response;
        if (response) await budget.answered(call, response.status, response.headers);
        throw err;
      } finally {
        budget.release();
      }
    },
  };
}
