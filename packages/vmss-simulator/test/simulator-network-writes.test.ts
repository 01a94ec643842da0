// Writes of a load balancer or an application gateway as Azure takes them: If-Match on the ETag it was read with
// (412 PreconditionFailed on a stale one), and a pool or inbound NAT pool that a scale set still names cannot be
// dropped (400 LoadBalancerInUseByVirtualMachineScaleSet); once the scale set is gone, it can.
import t from "tap";
import { SimulatorControl, startSimulator } from "../src/index.ts";
import { waitFor } from "./helpers/wait-for.ts";
import { scaleSetBody } from "./helpers/scale-set-body.ts";

const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 0, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());

const RG = `/subscriptions/${sim.subscriptionId}/resourceGroups/demo-rg`;
const NET = `${RG}/providers/Microsoft.Network`;
const VMSS = `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test" };
const LB = `${NET}/loadBalancers/demo-lb`;
const AGW = `${NET}/applicationGateways/demo-appgw`;
const NET_API = "?api-version=2024-05-01";

type Json = Record<string, unknown>;

async function get(id: string): Promise<Json> {
  const res = await control.request("GET", `${id}${NET_API}`, { headers: AUTH });
  if (res.status !== 200) throw new Error(`${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

function put(id: string, body: Json, ifMatch?: string) {
  return control.request("PUT", `${id}${NET_API}`, {
    headers: { ...AUTH, ...(ifMatch ? { "if-match": ifMatch } : {}) },
    body,
  });
}

function withChildren(resource: Json, change: (p: Json) => void): Json {
  const body = structuredClone(resource);
  change(body.properties as Json);
  return body;
}

/** A scale set of one VM whose NIC names `ipc` (pools by id). */
async function scaleSetNaming(name: string, ipc: Json): Promise<void> {
  const res = await control.request("PUT", `${VMSS}/${name}?api-version=2024-11-01`, {
    headers: AUTH,
    body: scaleSetBody(sim.subscriptionId, { prefix: "nw", ipc }),
  });
  if (res.status >= 300) throw new Error(JSON.stringify(res.body));
}

async function deleteScaleSet(name: string): Promise<void> {
  const res = await control.request("DELETE", `${VMSS}/${name}?api-version=2024-11-01`, { headers: AUTH });
  if (res.status >= 300) throw new Error(JSON.stringify(res.body));
  await waitFor(
    async () =>
      (await control.request("GET", `${VMSS}/${name}?api-version=2024-11-01`, { headers: AUTH })).status === 404,
    { what: `${name} to be gone` },
  );
}

t.test("If-Match on a load balancer: the ETag read is taken, a stale one answers 412", async (t) => {
  const read = await get(LB);
  const changed = withChildren(read, (p) => {
    p.backendAddressPools = [{ name: "etag-pool", properties: {} }];
  });
  const first = await put(LB, changed, read.etag as string);
  t.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300));
  const stale = await put(
    LB,
    withChildren(read, (p) => void (p.backendAddressPools = [])),
    read.etag as string,
  );
  t.equal(stale.status, 412);
  t.equal((stale.body as { error: { code: string } }).error.code, "PreconditionFailed");
  t.not((await get(LB)).etag, read.etag, "the write gave it a new ETag");
});

t.test("a pool and a NAT pool a scale set names cannot be dropped until the scale set is gone", async (t) => {
  await control.request("POST", "/_sim/reset");
  const read = await get(LB);
  const added = await put(
    LB,
    withChildren(read, (p) => {
      p.backendAddressPools = [{ name: "in-use", properties: {} }];
      p.inboundNatPools = [
        {
          name: "in-use",
          properties: {
            frontendIPConfiguration: { id: `${LB}/frontendIPConfigurations/frontend` },
            protocol: "Tcp",
            frontendPortRangeStart: 50000,
            frontendPortRangeEnd: 50099,
            backendPort: 22,
          },
        },
      ];
    }),
  );
  t.equal(added.status, 200, JSON.stringify(added.body).slice(0, 300));
  await scaleSetNaming("nw-user", {
    loadBalancerBackendAddressPools: [{ id: `${LB}/backendAddressPools/in-use` }],
    loadBalancerInboundNatPools: [{ id: `${LB}/inboundNatPools/in-use` }],
  });
  const withPools = await get(LB);
  for (const drop of ["backendAddressPools", "inboundNatPools"]) {
    const res = await put(
      LB,
      withChildren(withPools, (p) => void (p[drop] = [])),
    );
    t.equal(res.status, 400, `dropping ${drop}`);
    const error = (res.body as { error: { code: string; message: string } }).error;
    t.equal(error.code, "LoadBalancerInUseByVirtualMachineScaleSet");
    t.match(error.message, `since its child resources ${LB}/${drop}/in-use are in use by virtual machine scale set`);
    t.match(error.message, `${VMSS}/nw-user`);
  }
  t.same((await get(LB)).etag, withPools.etag, "nothing was written");
  await deleteScaleSet("nw-user");
  const freed = await get(LB);
  const res = await put(
    LB,
    withChildren(freed, (p) => {
      p.backendAddressPools = [];
      p.inboundNatPools = [];
    }),
    freed.etag as string,
  );
  t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
});

t.test("an application gateway's pool a scale set names cannot be dropped either", async (t) => {
  await control.request("POST", "/_sim/reset");
  const read = await get(AGW);
  const added = await put(
    AGW,
    withChildren(read, (p) => void (p.backendAddressPools = [{ name: "gw-pool" }])),
  );
  t.equal(added.status, 200, JSON.stringify(added.body).slice(0, 300));
  await scaleSetNaming("nw-gw-user", {
    applicationGatewayBackendAddressPools: [{ id: `${AGW}/backendAddressPools/gw-pool` }],
  });
  const res = await put(
    AGW,
    withChildren(await get(AGW), (p) => void (p.backendAddressPools = [])),
  );
  t.equal(res.status, 400);
  t.equal((res.body as { error: { code: string } }).error.code, "LoadBalancerInUseByVirtualMachineScaleSet");
});
