// Disabled as Orca sees it, for scale sets that clouddriver-azure disabled: what the scale set itself shows.
//
// clouddriver-azure (spinnaker/clouddriver 2f5e98f) disables by moving traffic to a parking pool:
//   AzureLoadBalancerResourceTemplate.groovy l.28 DEFAULT_BACKEND_POOL = "default_LB_BAP",
//   AzureAppGatewayResourceTemplate.groovy l.94 defaultAppGatewayBeAddrPoolName = "default_BAP0",
//   AzureNetworkClient.groovy disableServerGroupWithLoadBalancer: the rules that pointed at the server group's own pool
//   (named after it, l.385/414) are pointed at the parking pool; the scale set's NICs are left as they were.
// A scale set whose NICs sit only in a parking pool is out of traffic, and is recognised; one whose NICs are in its
// own pool while the load balancer's rules point elsewhere is not (the load balancer is not read), and enable says so.
import t from "tap";
import { Agent, request } from "undici";
import { SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());
const armAgent = new Agent({ connect: { ca: env.sim.caPem } });
t.teardown(() => armAgent.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
  await putWebLb();
});

/** clouddriver-azure's load balancer web-lb, with its parking pool and a server group's own pool: pools must exist. */
async function putWebLb() {
  const path = `/subscriptions/${SIMULATOR_SUBSCRIPTION_ID}/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/web-lb?api-version=2024-05-01`;
  const res = await request(`${env.sim.url}${path}`, {
    method: "PUT",
    dispatcher: armAgent,
    headers: { "content-type": "application/json", authorization: "Bearer clouddriver-azure" },
    body: JSON.stringify({
      location: "eastus",
      properties: {
        frontendIPConfigurations: [{ name: "frontend", properties: {} }],
        backendAddressPools: [{ name: "default_LB_BAP" }, { name: "web-prod-v001" }],
      },
    }),
  });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`PUT web-lb ${res.statusCode}`);
}

const lbPool = (lb: string, pool: string) =>
  `/subscriptions/${SIMULATOR_SUBSCRIPTION_ID}/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/${lb}/backendAddressPools/${pool}`;

/** Another tool (as clouddriver-azure's deploy would have) sets the scale set's load-balancer pools, through ARM. */
async function setPools(name: string, poolIds: string[]) {
  const current = (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body;
  const nics = current.vmss.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations.map(
    (nic: Json) => ({
      ...nic,
      properties: {
        ...nic.properties,
        ipConfigurations: nic.properties.ipConfigurations.map((ipc: Json) => ({
          ...ipc,
          properties: {
            ...ipc.properties,
            loadBalancerBackendAddressPools: poolIds.map((id) => ({ id })),
            applicationGatewayBackendAddressPools: [],
          },
        })),
      },
    }),
  );
  const path = `/subscriptions/${SIMULATOR_SUBSCRIPTION_ID}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/${name}?api-version=2024-11-01`;
  const res = await request(`${env.sim.url}${path}`, {
    method: "PATCH",
    dispatcher: armAgent,
    headers: { "content-type": "application/json", authorization: "Bearer clouddriver-azure" },
    body: JSON.stringify({
      properties: { virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nics } } },
    }),
  });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`PATCH ${res.statusCode}`);
  await waitFor(async () => !(await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.inFlight, {
    what: `the PATCH of ${name}'s pools to end`,
  });
}

async function run(op: string, name: string) {
  const res = await env.api("POST", `/azure/ops/${op}`, demo(name));
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return env.waitForTask(res.body.id);
}

t.test(
  "a scale set only in clouddriver-azure's parking pool reads disabled; disable is done, enable refuses",
  async (t) => {
    await setPools("web-prod-v002", [lbPool("web-lb", "default_LB_BAP")]);
    const read = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002");
    t.equal(read.body.disabled, true);
    t.equal(read.body.disabledBy, "parkingPool");

    const before = writesOf(await env.calls()).length;
    const disable = await run("disableServerGroup", "web-prod-v002");
    t.equal(disable.state, "succeeded", JSON.stringify(disable.history));
    t.match(disable.resultObjects, [{ disabled: true }]);
    t.ok(
      disable.history.some((h: Json) =>
        /out of traffic already: only in parking pool\(s\) default_LB_BAP/.test(h.status),
      ),
      JSON.stringify(disable.history),
    );
    t.equal(writesOf(await env.calls()).length, before, "nothing written");

    const enable = await run("enableServerGroup", "web-prod-v002");
    t.equal(enable.state, "failed", "no record of the pool it served from: enable cannot claim it is in traffic");
    t.equal(enable.status.retryable, false);
    t.match(enable.resultObjects.at(-1), {
      type: "EXCEPTION",
      cause: "ParkedByClouddriver",
      message: /disabled the clouddriver-azure way/,
    });
    t.equal(writesOf(await env.calls()).length, before, "still nothing written");
  },
);

t.test(
  "a pool named after the scale set (clouddriver-azure's layout): enable says the rules were not checked",
  async (t) => {
    await setPools("web-prod-v001", [lbPool("web-lb", "web-prod-v001")]);
    const read = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001");
    t.equal(read.body.disabled, false, "as far as the scale set shows");
    const enable = await run("enableServerGroup", "web-prod-v001");
    t.equal(enable.state, "succeeded");
    t.ok(
      enable.history.some((h: Json) =>
        /its load-balancer rules are not checked \(clouddriver-azure layout\)/.test(h.status),
      ),
      JSON.stringify(enable.history),
    );
    // Our own disable still works on it, and enable restores exactly that pool.
    const disable = await run("disableServerGroup", "web-prod-v001");
    t.match(disable.resultObjects, [{ disabled: true }]);
    const back = await run("enableServerGroup", "web-prod-v001");
    t.equal(back.state, "succeeded");
    const after = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001");
    t.same(after.body.backendPools, [lbPool("web-lb", "web-prod-v001")]);
    t.equal(after.body.disabled, false);
  },
);
