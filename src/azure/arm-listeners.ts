// Sees every ARM response our clients receive, and hands it to whoever is running in the current async context.
// This is how the harness learns the poll interval that a long-running operation advertises (the SDK reads only
// whole-second Retry-After), counts ARM calls per task, and notes the throttling budget Azure reports.
import { AsyncLocalStorage } from "node:async_hooks";
import type { PipelinePolicy } from "@azure/core-rest-pipeline";

export interface ArmResponseInfo {
  method: string;
  url: string;
  status: number;
  headers: { get(name: string): string | undefined };
  /** The response body as text, when the SDK read it whole (not for streamed responses). */
  bodyAsText?: string;
}

export interface ArmResponseListener {
  onArmResponse(info: ArmResponseInfo): void;
  /**
   * A call of this scope waits for the ARM budget (src/azure/arm-budget/): a scope that has it is a task's, whose
   * calls go before reads for a cache, and whose history says what it waits for.
   */
  onArmWait?(wait: { budget: string; waitMs: number }): void;
  /** Asked before each call of this scope is sent: a promise holds the call until it settles (a task's turn). */
  beforeArmCall?(): Promise<void> | undefined;
}

const listeners = new AsyncLocalStorage<ArmResponseListener[]>();
/** Listeners that see every ARM response of the process, whatever runs (e.g. the rate-limit budget). */
const globalListeners = new Set<ArmResponseListener>();

export function listenToAllArmResponses(listener: ArmResponseListener): () => void {
  globalListeners.add(listener);
  return () => globalListeners.delete(listener);
}

/** Runs fn with listener added to those that see the ARM responses fn causes (nested scopes all see them). */
export function listenToArmResponses<T>(listener: ArmResponseListener, fn: () => T): T {
  const outer = listeners.getStore() ?? [];
  return listeners.run([...outer, listener], fn);
}

/** The listeners of the current scope that want to hear of waits for the ARM budget, as one callback; none: undefined. */
export function armCallWaiting(): ((wait: { budget: string; waitMs: number }) => void) | undefined {
  const waiting = (listeners.getStore() ?? []).filter((l) => l.onArmWait !== undefined);
  if (waiting.length === 0) return undefined;
  return (wait) => {
    for (const l of waiting) l.onArmWait!(wait);
  };
}

export const armListenerPolicy: PipelinePolicy = {
  name: "vmssOpsArmListener",
  async sendRequest(request, next) {
    const current = listeners.getStore();
    for (const l of current ?? []) {
      const held = l.beforeArmCall?.();
      if (held) await held;
    }
    const response = await next(request);
    if (current || globalListeners.size > 0) {
      const info: ArmResponseInfo = {
        method: request.method,
        url: request.url,
        status: response.status,
        headers: { get: (name) => response.headers.get(name) },
        ...(typeof response.bodyAsText === "string" ? { bodyAsText: response.bodyAsText } : {}),
      };
      for (const l of current ?? []) l.onArmResponse(info);
      for (const l of globalListeners) l.onArmResponse(info);
    }
    return response;
  },
};
