// `outOfBandChange` faults on a load balancer or an application gateway: another writer (a person in the portal, a
// team's pipeline) changes its tags just before the request is handled, so an If-Match read before is now stale.
// Only `tags` applies to a network resource (merged; null removes one); the change is used up when it matches.
import type { SimulatorContext } from "../context.ts";
import type { RequestContext } from "../http.ts";
import { clone } from "../json.ts";
import { mergeTags } from "../state.ts";
import { network } from "./network-routes.ts";
import { networkTypeOf } from "./network-state.ts";

const BALANCER_PATH =
  /^\/subscriptions\/[^/]+\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/(loadBalancers|applicationGateways)\/([^/]+)$/i;

/** Applies a matching fault's tags to the balancer the request addresses; false when the path is not one. */
export function applyNetworkOutOfBandChange(ctx: RequestContext, sim: SimulatorContext): boolean {
  const m = BALANCER_PATH.exec(ctx.pathname);
  if (!m) return false;
  const fault = sim.faults.take(ctx.method, ctx.pathname, ["outOfBandChange"]);
  if (!fault?.change?.tags) return true;
  const type = networkTypeOf(m[2])!;
  const existing = network(sim).get(type, decodeURIComponent(m[1]), decodeURIComponent(m[3]));
  if (!existing) return true;
  const body = clone(existing.body);
  body.tags = mergeTags(body.tags, fault.change.tags);
  network(sim).put(type, existing.resourceGroup, existing.name, existing.location, body);
  if (ctx.call) ctx.call.fault = "outOfBandChange";
  return true;
}
