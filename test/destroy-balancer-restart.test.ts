// A destroy that crashes between deleting the scale set and cleaning the shared load balancer still cleans it: the
// record of what the create added was on the scale set, which is gone, so the destroy kept it in the task's checkpoint
// before the DELETE, and the restarted service cleans from there. The service is a real child process; the
// simulator outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { demoCreate } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 100, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
t.teardown(() => control.close());

const LB = `/subscriptions/${sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/demo-lb`;

async function readLb(): Promise<Json> {
  const res = await control.request("GET", `${LB}?api-version=2024-05-01`, {
    headers: { authorization: "Bearer test" },
  });
  return res.body as Json;
}

const names = (lb: Json, collection: string): string[] =>
  ((lb.properties[collection] ?? []) as Json[]).map((c) => c.name as string);

t.test(
  "SIGKILL after the scale set is deleted, before the load balancer is cleaned: the restart cleans it",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-destroy-balancer-"));
    const first = await startChildService(restartableServiceEnv(sim.url, dataDir));
    const created = await first.api("POST", "/azure/ops/createServerGroup", {
      ...demoCreate(sim.subscriptionId, {
        application: "crash",
        capacity: { min: 1, max: 1, desired: 1 },
        loadBalancerName: "demo-lb",
      }),
      loadBalancerBackendPoolId: undefined,
    });
    t.equal(created.status, 202);
    const create = await first.waitForTask(created.body.id);
    t.equal(create.state, "succeeded", JSON.stringify(create.history));
    const group = create.resultObjects[0].serverGroupName as string;
    t.same(names(await readLb(), "backendAddressPools"), [group]);

    // Azure answers the load balancer's write 503 for as long as it takes: the destroy is stuck retrying it.
    await control.addFault({
      action: "respond",
      method: "PUT",
      pathContains: "/loadBalancers/demo-lb",
      status: 503,
      code: "ServiceUnavailable",
      count: 1000,
    });
    await control.clearCalls();
    const submitted = await first.api("POST", "/azure/ops/destroyServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: group,
    });
    t.equal(submitted.status, 202);
    await waitFor(
      async () =>
        (await control.calls()).some(
          (c) => c.method === "PUT" && c.path.endsWith("/loadBalancers/demo-lb") && c.status === 503,
        ),
      { what: "the destroy's first write of the load balancer, after the scale set is gone" },
    );
    t.equal(
      (await control.getScaleSet("demo-rg", group).catch(() => undefined)) === undefined,
      true,
      "the scale set is gone",
    );
    first.child.kill("SIGKILL");
    await first.exited;
    await control.clearFaults();

    const second = await startChildService(restartableServiceEnv(sim.url, dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    const task = await second.waitForTask(submitted.body.id);
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const after = await readLb();
    t.same(names(after, "backendAddressPools"), [], "the pool its create added is removed");
    t.same(names(after, "inboundNatPools"), [], "and its NAT pool");
    second.child.kill("SIGTERM");
    await second.exited;
  },
);
