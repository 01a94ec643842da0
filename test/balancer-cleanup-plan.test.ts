// The record of what a create added to a shared balancer, and the destroy's plan on a read of that balancer: only
// what the record names is removed, a pool Azure lists members of is kept, and nothing left is done.
import t from "tap";
import {
  formatAdditions,
  parseAdditions,
  additionsFromJson,
  type BalancerAdditions,
} from "../src/operations/balancer-additions.ts";
import { planBalancerCleanUp } from "../src/operations/balancer-cleanup.ts";
import type { NetworkResource } from "../src/azure/network-gateway.ts";

const record: BalancerAdditions = { kind: "lb", balancer: "lb", pools: ["app-v001"], natPools: ["app-v001"] };
const ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb";

t.test("the record round-trips, within Azure's 256 characters for the longest names", async (t) => {
  t.equal(formatAdditions(record), "lb/lb/pool/app-v001,nat/app-v001");
  t.same(parseAdditions(formatAdditions(record)), record);
  const longest: BalancerAdditions = {
    kind: "lb",
    balancer: "b".repeat(80),
    pools: ["g".repeat(64)],
    natPools: ["g".repeat(64)],
  };
  t.ok(formatAdditions(longest).length <= 256, `${formatAdditions(longest).length} characters`);
  t.same(parseAdditions("agw/gw/pool/app-v002"), { kind: "agw", balancer: "gw", pools: ["app-v002"], natPools: [] });
  for (const bad of [undefined, "", "lb/x", "xx/lb/pool/a", "lb/lb/probe/a"])
    t.equal(parseAdditions(bad), undefined, String(bad));
  t.same(additionsFromJson(JSON.parse(JSON.stringify(record))), record, "as a checkpoint keeps it");
  t.equal(additionsFromJson({ kind: "lb", balancer: "lb", pools: [1], natPools: [] }), undefined);
});

function lb(pools: { name: string; members?: number }[], nat: string[]): NetworkResource {
  return {
    id: ID,
    etag: 'W/"7"',
    properties: {
      frontendIPConfigurations: [{ name: "fe" }],
      backendAddressPools: pools.map((p) => ({
        name: p.name,
        properties: { backendIPConfigurations: Array.from({ length: p.members ?? 0 }, (_, i) => ({ id: `ipc${i}` })) },
      })),
      inboundNatPools: nat.map((name) => ({ name, properties: {} })),
      probes: [{ name: "http" }],
    },
  };
}

t.test("the plan on a fresh read of the balancer", async (t) => {
  const both = planBalancerCleanUp("app-v001", record, {
    id: ID,
    resource: lb([{ name: "team-pool", members: 2 }, { name: "APP-V001" }], ["app-v001", "other"]),
  });
  t.match(both, { kind: "balancerPools", id: ID, etag: 'W/"7"' }, "If-Match the ETag read");
  if (both.kind === "balancerPools") {
    t.same(
      both.body.properties!.backendAddressPools!.map((p) => p.name),
      ["team-pool"],
      "names matched as Azure does, in any case",
    );
    t.same(
      both.body.properties!.inboundNatPools!.map((p) => p.name),
      ["other"],
    );
    t.same(both.body.properties!.probes, [{ name: "http" }], "the rest as read");
  }
  const kept = planBalancerCleanUp("app-v001", record, {
    id: ID,
    resource: lb([{ name: "app-v001", members: 1 }], []),
  });
  t.match(kept, { kind: "done", summary: /backend pool app-v001 kept: Azure lists 1 member\(s\) of it/ });
  t.match(
    planBalancerCleanUp("app-v001", record, { id: ID, resource: lb([], []) }),
    { kind: "done" },
    "already removed",
  );
  t.match(planBalancerCleanUp("app-v001", record, { id: ID, resource: undefined }), {
    kind: "done",
    summary: "load balancer lb is gone: nothing of app-v001's left to remove",
  });
});
