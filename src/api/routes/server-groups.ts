// GET /azure/serverGroups/{account}/{region}/{resourceGroup}/{name}: the scale set as Azure reports it now.
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RetryConfig } from "../../azure/retry-policy.ts";
import type { AccountRegistry } from "../../azure/accounts.ts";
import { observe } from "../../azure/observe.ts";
import { confirmation } from "../../azure/scale-set-state.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../../azure/vmss-gateway.ts";
import { AccountName, RegionName, ResourceGroupName, ScaleSetName } from "../../operations/description.ts";
import {
  disabledBy,
  recordedCapacity,
  servesTraffic,
  trafficPools,
  vmTrafficPools,
} from "../../operations/server-group-state.ts";
import { requireAccount } from "../access-control.ts";
import { validationError } from "../errors.ts";
import { readFailureAnswer } from "../failure-answers.ts";
import { ServerGroup } from "../schemas.ts";
import { errorResponses } from "../error-responses.ts";

/** The scale set as GET /azure/serverGroups/… answers it; Clouddriver's shape is clouddriver/server-group.ts's. */
export function serverGroupBody(snapshot: ScaleSetSnapshot, ref: ScaleSetRef): Static<typeof ServerGroup> {
  const { vmss } = snapshot;
  const mode = disabledBy(vmss);
  const agreement = confirmation(snapshot);
  return {
    account: ref.account,
    region: ref.region,
    resourceGroup: ref.resourceGroup,
    name: vmss.name ?? ref.name,
    capacity: recordedCapacity(vmss),
    disabled: mode !== undefined,
    ...(mode ? { disabledBy: mode } : {}),
    provisioningState: vmss.provisioningState,
    upgradePolicy: vmss.upgradePolicy?.mode,
    etag: snapshot.etag,
    backendPools: trafficPools(vmss).map((p) => p.id),
    ...(vmss.zones?.length ? { zones: [...vmss.zones] } : {}),
    tags: { ...vmss.tags },
    instances: (snapshot.vms ?? []).map((vm) => {
      const pools = vmTrafficPools(vm);
      return {
        instanceId: vm.instanceId ?? "",
        name: vm.name,
        provisioningState: vm.provisioningState,
        latestModelApplied: vm.latestModelApplied,
        ...(vm.zones?.[0] ? { zone: vm.zones[0] } : {}),
        ...(pools ? { inTraffic: servesTraffic(pools) } : {}),
      };
    }),
    instanceCount: agreement.instances,
    ...(agreement.confirmed ? {} : { disagreement: agreement.reason }),
  };
}

export const serverGroupRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountRegistry;
  readRetry: RetryConfig;
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
}> = async (app, opts) => {
  // A read answers an HTTP request: a few quick retries (readRetry), not a deployment's patience.
  const retry = opts.readRetry;

  app.get(
    "/azure/serverGroups/:account/:region/:resourceGroup/:name",
    {
      schema: {
        operationId: "getServerGroup",
        description:
          "Read from Azure now (not from the read cache): the model, the instances and whether each is in traffic, vmss-ops' own tags, and the ETag a write would carry. A read Azure fails in a way that asking again can change is 503 with Retry-After.",
        summary: "A scale set as Azure reports it now: capacity, instances, traffic, ETag",
        tags: ["serverGroups"],
        params: Type.Object({
          account: AccountName,
          region: RegionName,
          resourceGroup: ResourceGroupName,
          name: ScaleSetName,
        }),
        response: {
          200: { ...Type.Ref(ServerGroup), description: "The scale set as Azure reports it now" },
          ...errorResponses("ValidationError", "NotFound", "AzureError", "AzureUnavailable"),
        },
      },
    },
    async (request) => {
      const p = request.params;
      requireAccount(request, p.account, "read");
      const located = opts.accounts.locate({
        account: p.account,
        region: p.region,
        resourceGroup: p.resourceGroup,
        serverGroupName: p.name,
      });
      if (!located.ok) throw validationError(located.problems);
      const ref = located.ref;
      const gateway = opts.accounts.gateway(ref);
      let snapshot: ScaleSetSnapshot;
      try {
        snapshot = await observe((signal) => gateway.read({ withInstances: true, signal }), { retry });
      } catch (err) {
        throw readFailureAnswer(err, `scale set ${p.name} in ${p.resourceGroup}`);
      }
      return serverGroupBody(snapshot, ref);
    },
  );
};
