// A create's planner: the PUT when the scale set is missing, then a wait until Azure confirms it and its instances
// are healthy behind the load balancer; one not healthy in time is taken out of traffic and the create fails.
import { RefusalError } from "../../azure/arm-failure.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../../azure/vmss-gateway.ts";
import {
  MAX_WRITES_PER_ATTEMPT,
  type BatchWriter,
  type Creator,
  type PlannedStep,
  type ReadsAutoscale,
  type ResultOnFailure,
  type ScaleSetPlanner,
} from "../../azure/planner.ts";
import { isReady } from "../rolling-upgrade-model.ts";
import { confirmation, isActionableInstance, kindOf } from "../../azure/scale-set-state.ts";
import { disableServerGroup } from "../disable-server-group.ts";
import { NAME_TAKEN, type RunContext } from "../operation.ts";
import {
  disabledMode,
  readPoolsRecord,
  serverGroupResult,
  trafficPools,
  type CreatedServerGroupResult,
} from "../server-group-state.ts";
import { type AnyCreate } from "./description.ts";
import { TAG_CREATED_BY, creationMark, type CreateContext } from "./prepare.ts";
import { createStep } from "./create-write.ts";
import { copyStep, type AutoscaleCopy } from "./autoscale-copy.ts";
import { sourceName } from "./checks.ts";
import { extensionProbePace, healthExpectation } from "./health-expectation.ts";

function createdResult(
  snapshot: Parameters<typeof serverGroupResult>[0],
  target: ScaleSetRef,
  context: CreateContext | undefined,
): CreatedServerGroupResult {
  const base = serverGroupResult(snapshot, target);
  const pools =
    disabledMode(snapshot.vmss) === "pools" ? readPoolsRecord(snapshot.vmss, target) : trafficPools(snapshot.vmss);
  return {
    ...base,
    type: "createdServerGroup",
    serverGroupNames: [`${target.region}:${target.name}`],
    serverGroupNameByRegion: { [target.region]: target.name },
    serverGroups: { [target.region]: { name: target.name } },
    ...(context?.ancestor ? { ancestorServerGroupNameByRegion: { [target.region]: context.ancestor } } : {}),
    loadBalancerPools: pools.map((p) => p.id),
    ...(context?.notCopied ? { notCopied: context.notCopied } : {}),
  };
}

/** The create's line, saying the autoscale copy to come: a dry run plans only the create, and shows it so. */
function withCopySaid<S extends { summary: string }>(step: S, copy: AutoscaleCopy | undefined): S {
  if (!copy) return step;
  return {
    ...step,
    summary: `${step.summary}; then the source's autoscale setting ${copy.from} copied as ${copy.name}`,
  };
}

/** Written when the new group is taken out of traffic because its instances did not become healthy: why. */
export const TAG_NOT_HEALTHY = "vmss-ops.not-healthy";

/** clouddriver-azure waits up to an hour (SERVER_WAIT_TIMEOUT); ten minutes stays inside the retry deadline. */
export const DEFAULT_HEALTHY_TIMEOUT_SECONDS = 600;

export function createPlanner(
  d: AnyCreate,
  target: ScaleSetRef,
  run: RunContext | undefined,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
): ScaleSetPlanner<CreatedServerGroupResult> & Creator & ResultOnFailure & ReadsAutoscale & BatchWriter {
  if (!run?.prepared) throw new Error("createServerGroup runs only after prepare chose its name");
  const context = run.prepared.context as CreateContext;
  const mark = creationMark(run.origin);
  const inTraffic = d.disabled !== true;
  const boundMs = (d.healthyTimeoutSeconds ?? DEFAULT_HEALTHY_TIMEOUT_SECONDS) * 1000;
  const takeOut = disableServerGroup.planner({ ...target, serverGroupName: target.name }, target);
  const autoscale = context.autoscale;
  return {
    readsInstances: true,
    resultOnFailure: true,
    // A clone's copy of its source's autoscale setting: every read sees whether one targets the new group yet.
    readsAutoscale: autoscale !== undefined,
    maxWrites: MAX_WRITES_PER_ATTEMPT + (autoscale ? 1 : 0),
    createWhenMissing() {
      if (context.found) {
        // Listed with this request's mark, then gone: someone deleted it. One request makes one server group.
        throw new RefusalError(
          "CreatedServerGroupGone",
          `${target.name} was created for this request and no longer exists; not creating it again`,
        );
      }
      return withCopySaid(createStep(d, target, context, { mark, inTraffic, env }), autoscale);
    },
    plan(snapshot: ScaleSetSnapshot): PlannedStep {
      const { vmss } = snapshot;
      const madeBy = vmss.tags?.[TAG_CREATED_BY];
      if (madeBy !== mark) {
        throw new RefusalError(
          NAME_TAKEN,
          `${target.name} exists and was not created by this request (${TAG_CREATED_BY}: ${madeBy ?? "none"})`,
        );
      }
      // Once the scale set exists, and only while no setting targets it (a run resumed after writing it, or one its
      // owner made meanwhile, is not written over).
      if (autoscale && snapshot.autoscale === null) return copyStep(autoscale, sourceName(d) ?? "the source");
      const created = `${target.name} created (capacity ${vmss.sku?.capacity ?? 0})`;
      const notHealthy = vmss.tags?.[TAG_NOT_HEALTHY];
      const pools = trafficPools(vmss);
      if (notHealthy === undefined && (!inTraffic || pools.length === 0 || disabledMode(vmss) !== undefined))
        return { kind: "done", summary: created };
      // Azure first: a create it left Failed or short of instances is the harness's to confirm or re-drive.
      if (notHealthy === undefined && !confirmation(snapshot).confirmed) return { kind: "done", summary: created };
      const health = healthOf(snapshot);
      if (notHealthy === undefined && health.ready)
        return { kind: "done", summary: `${created}, in traffic: ${health.summary}` };
      const since = vmss.timeCreated ? new Date(vmss.timeCreated).getTime() : now();
      if (notHealthy === undefined && now() - since < boundMs) {
        const waitedOn = (snapshot.vms ?? []).filter((vm) => isActionableInstance(vm) && !isReady(vm, true));
        const expect = healthExpectation(waitedOn, [context.network?.probe, extensionProbePace(snapshot)]);
        return {
          kind: "wait",
          summary: `waiting for the instances of ${target.name} to be healthy behind the load balancer before it serves: ${health.summary}`,
          ...(expect ? { expect } : {}),
        };
      }
      // Not healthy in time: out of its pools, as disableServerGroup takes a group out, then the create fails.
      const reason = notHealthy ?? `not healthy within ${Math.round(boundMs / 1000)} s: ${health.summary}`;
      const step = takeOut.plan(snapshot);
      if (step.kind === "done") {
        throw new RefusalError(
          "ServerGroupNotHealthy",
          `${target.name} was taken out of traffic: its instances were ${reason}; the older server groups were not touched`,
        );
      }
      if (step.kind === "update")
        return {
          ...step,
          summary: `${reason}: ${step.summary}`,
          patch: {
            ...step.patch,
            tags: { ...(step.patch.tags ?? vmss.tags), [TAG_NOT_HEALTHY]: reason.slice(0, 256) },
          },
        };
      return step;
    },
    result: (snapshot: ScaleSetSnapshot) => createdResult(snapshot, target, context),
  };
}

/**
 * Whether every instance is running and healthy behind the load balancer, and a line saying how many are. Where
 * Azure reports no health for any of them, ready means running in the pools, and the line says so: a Flexible VM
 * reports health only from the Application Health extension (healthSettings), never the load balancer's probe.
 */
function healthOf(snapshot: ScaleSetSnapshot): { ready: boolean; summary: string } {
  const desired = snapshot.vmss.sku?.capacity ?? 0;
  const vms = (snapshot.vms ?? []).filter(isActionableInstance);
  const ready = vms.filter((vm) => isReady(vm, true)).length;
  const reported = vms.some((vm) => vm.instanceView?.vmHealth?.status?.code !== undefined);
  const why =
    kindOf(snapshot.vmss).orchestration === "Flexible"
      ? "a Flexible VM reports health only from the Application Health extension, which its model lacks (healthSettings)"
      : "no health probe or Application Health extension watches them";
  const summary =
    reported || vms.length === 0
      ? `${ready}/${desired} healthy`
      : `${ready}/${desired} running in the pools; Azure reports no health for them (${why}), so this says they run in the pools, not that they answer`;
  return { ready: ready >= desired && vms.length >= desired, summary };
}
