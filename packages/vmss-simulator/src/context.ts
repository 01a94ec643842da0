// What every route handler works with: the world, the faults, the call log and the throttling buckets.
import type { CallLog } from "./calls.ts";
import type { FaultStore } from "./faults.ts";
import type { RequestContext } from "./http.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import type { Charge, Throttler } from "./throttling.ts";

export interface SimulatorContext {
  state: SimState;
  faults: FaultStore;
  calls: CallLog;
  /** Started with seed: true; reset re-seeds. */
  seeded: boolean;
  /** Request bodies above this get 413. */
  bodyLimitBytes: number;
  /** Compute's token buckets and ARM's subscription budgets (on unless switched off). */
  throttling: Throttler;
}

/** A route handler. Synchronous: the body is already read, so a request is handled in one turn of the event loop. */
export type Handler = (ctx: RequestContext, sim: SimulatorContext, params: RouteParams) => void;

/** One entry of a route table: what answers the request, and (ARM routes) which throttling policy it is charged to. */
export interface Route {
  handler: Handler;
  charge?: (params: RouteParams, sim: SimulatorContext) => Charge;
}
