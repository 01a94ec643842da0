// A destroy leaves a shared balancer as it was before the group's create: the create records what it added (a
// backend pool and an inbound NAT pool in a load balancer, a pool in an application gateway) on the scale set, and
// the destroy removes exactly that once the scale set is gone, with If-Match on the balancer, re-read and re-planned
// when someone changed it meanwhile. A pool the create did not add is kept; a freed NAT port range is used again.
// Upstream: clouddriver-azure left both behind (spinnaker/clouddriver#616).
import t from "tap";
import { SimulatorControl } from "vmss-simulator";
import { demoCreate, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());
const arm = new SimulatorControl(env.sim);
t.teardown(() => arm.close());
t.beforeEach(async () => {
  await arm.reset();
});

const sub = env.sim.subscriptionId;
const NET = `/subscriptions/${sub}/resourceGroups/demo-rg/providers/Microsoft.Network`;
const LB = `${NET}/loadBalancers/demo-lb`;
const AGW = `${NET}/applicationGateways/demo-appgw`;
const AUTH = { authorization: "Bearer test" };

/** A network resource as Azure answers a GET of it. */
async function read(id: string): Promise<Json> {
  const res = await arm.request("GET", `${id}?api-version=2024-05-01`, { headers: AUTH });
  if (res.status !== 200) throw new Error(`${id}: ${res.status}`);
  return res.body as Json;
}

/** The resource without its ETags (every write gives it, and its children, new ones). */
function withoutEtags(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutEtags);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "etag")
      .map(([k, v]) => [k, withoutEtags(v as Json)]),
  );
}

async function run(operation: string, description: Record<string, unknown>): Promise<Json> {
  const res = await env.api("POST", `/azure/ops/${operation}`, description);
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return env.waitForTask(res.body.id);
}

/** A create of `application`-prod behind the named balancer (no pool of the team's named). */
async function createBehind(application: string, balancer: Record<string, unknown>): Promise<string> {
  const task = await run(
    "createServerGroup",
    demoCreate(sub, {
      application,
      capacity: { min: 1, max: 1, desired: 1 },
      loadBalancerBackendPoolId: undefined,
      ...balancer,
    }),
  );
  if (task.state !== "succeeded") throw new Error(JSON.stringify(task.history));
  return task.resultObjects[0].serverGroupName as string;
}

async function destroy(name: string): Promise<Json> {
  return run("destroyServerGroup", { credentials: "demo", region: "eastus", serverGroupName: name });
}

const names = (resource: Json, collection: string): string[] =>
  ((resource.properties[collection] ?? []) as Json[]).map((c) => c.name as string);
const lines = (task: Json): string => task.history.map((h: Json) => h.status).join("\n");

t.test("create with loadBalancerName, then destroy: the load balancer is exactly as before the create", async (t) => {
  const before = await read(LB);
  const group = await createBehind("lbclean", { loadBalancerName: "demo-lb" });
  const during = await read(LB);
  t.same(names(during, "backendAddressPools"), [group], "the create added its backend pool");
  t.same(names(during, "inboundNatPools"), [group], "and its inbound NAT pool");
  const model = await arm.getScaleSet("demo-rg", group);
  t.equal(
    (model.vmss as Json).tags["vmss-ops.balancer-added"],
    `lb/demo-lb/pool/${group},nat/${group}`,
    "recorded on the scale set, in the create's PUT",
  );

  await arm.clearCalls();
  const task = await destroy(group);
  t.equal(task.state, "succeeded", lines(task));
  t.same(withoutEtags(await read(LB)), withoutEtags(before), "the load balancer as before the create");
  t.match(lines(task), `remove backend pool ${group} and inbound NAT pool ${group} of load balancer demo-lb`);
  const puts = (await arm.calls()).filter((c) => c.method === "PUT" && /loadBalancers\/demo-lb$/i.test(c.path));
  t.equal(puts.length, 1, "one write of the load balancer");
  t.equal(puts[0].ifMatch, during.etag, "with If-Match on the ETag it was read with");
  const deleteAt = (await arm.calls()).findIndex((c) => c.method === "DELETE");
  const putAt = (await arm.calls()).findIndex((c) => c.method === "PUT");
  t.ok(deleteAt >= 0 && putAt > deleteAt, "after the scale set's delete (Azure refuses it while the set names them)");
});

t.test("the same with an application gateway", async (t) => {
  const before = await read(AGW);
  const group = await createBehind("gwclean", {
    loadBalancerName: "demo-appgw",
    loadBalancerType: "Azure Application Gateway",
  });
  t.same(names(await read(AGW), "backendAddressPools"), [group], "the create added its pool");
  const task = await destroy(group);
  t.equal(task.state, "succeeded", lines(task));
  t.same(withoutEtags(await read(AGW)), withoutEtags(before), "the gateway as before the create");
});

t.test("a pool the destroyed group shared is kept: only what its own create added is removed", async (t) => {
  const owner = await createBehind("owner", { loadBalancerName: "demo-lb" });
  // A second group put in the first one's pool by id: its create adds nothing, and records nothing.
  const sharer = await createBehind("sharer", { loadBalancerBackendPoolId: `${LB}/backendAddressPools/${owner}` });
  const sharerTags = ((await arm.getScaleSet("demo-rg", sharer)).vmss as Json).tags;
  t.equal(sharerTags["vmss-ops.balancer-added"], undefined, "nothing recorded: it added nothing");

  const first = await destroy(owner);
  t.equal(first.state, "succeeded", lines(first));
  const after = await read(LB);
  t.same(names(after, "backendAddressPools"), [owner], "the pool another group is in is kept");
  t.same(names(after, "inboundNatPools"), [], "the NAT pool only the owner used is removed");
  t.match(lines(first), `backend pool ${owner} kept: Azure lists 1 member(s) of it`);

  const second = await destroy(sharer);
  t.equal(second.state, "succeeded", lines(second));
  t.same(names(await read(LB), "backendAddressPools"), [owner], "the sharer's destroy removes nothing it did not add");
});

t.test(
  "a load balancer changed between the destroy's read and its write: 412, read again, planned again",
  async (t) => {
    const before = await read(LB);
    const group = await createBehind("racing", { loadBalancerName: "demo-lb" });
    // A person tags the load balancer in the portal just before the destroy's PUT reaches Azure.
    await arm.addFault({
      action: "outOfBandChange",
      method: "PUT",
      pathContains: "/loadBalancers/demo-lb",
      change: { tags: { owner: "network-team" } },
    });
    await arm.clearCalls();
    const task = await destroy(group);
    t.equal(task.state, "succeeded", lines(task));
    const puts = (await arm.calls()).filter((c) => c.method === "PUT" && /loadBalancers\/demo-lb$/i.test(c.path));
    t.same(
      puts.map((c) => c.status),
      [412, 200],
      "the first PUT was planned on a stale read; the second on a fresh one",
    );
    t.not(puts[0].ifMatch, puts[1].ifMatch, "each with the ETag of its own read");
    t.match(lines(task), /attempt 1\/8: PreconditionFailed, retrying/);
    t.match(
      lines(task),
      /attempt 2\/8: remove backend pool racing-prod-v000 and inbound NAT pool racing-prod-v000 of load balancer demo-lb, .*\(If-Match W\/"3"\)/,
    );
    t.same(
      withoutEtags(await read(LB)),
      { ...withoutEtags(before), tags: { owner: "network-team" } },
      "the group's pools removed, the other writer's change kept",
    );
  },
);

t.test("a NAT port range freed by a destroy is the next create's", async (t) => {
  const first = await createBehind("portsa", { loadBalancerName: "demo-lb" });
  const second = await createBehind("portsb", { loadBalancerName: "demo-lb" });
  const range = (resource: Json, pool: string) => {
    const p = (resource.properties.inboundNatPools as Json[]).find((n) => n.name === pool);
    return [p.properties.frontendPortRangeStart, p.properties.frontendPortRangeEnd];
  };
  const both = await read(LB);
  t.same(range(both, first), [50000, 50099]);
  t.same(range(both, second), [50100, 50199]);
  t.equal((await destroy(first)).state, "succeeded");
  const third = await createBehind("portsc", { loadBalancerName: "demo-lb" });
  t.same(range(await read(LB), third), [50000, 50099], "the lowest free range, not after the highest");
});

t.test(
  "a dry run of a create behind a load balancer writes nothing to it, and says what a run would add",
  async (t) => {
    const before = await read(LB);
    const res = await env.api(
      "POST",
      "/azure/ops/createServerGroup?dryRun=true",
      demoCreate(sub, { application: "dry", loadBalancerBackendPoolId: undefined, loadBalancerName: "demo-lb" }),
    );
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.same(await read(LB), before, "the load balancer is untouched, its ETag too");
    t.match(
      res.body.operations[0].preparation.join("\n"),
      "would add backend pool dry-prod-v000 and inbound NAT pool dry-prod-v000 of load balancer demo-lb",
    );
  },
);
