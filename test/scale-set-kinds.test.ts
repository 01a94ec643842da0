// Scale sets as they are made today, end to end (HTTP API → task → real SDK → simulator): each operation either works
// on the kind in front of it or refuses before writing, and each test asserts what Azure (the simulator) shows
// afterwards — VMs, pool membership, the AutomaticRepairs service — not only what the task says.
import t from "tap";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startResettingTestEnv, writesOf, type SimCall } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const { env, control: sim } = await startResettingTestEnv(t, { writeDurationMs: 100 });

const armPath = (name: string) =>
  `/subscriptions/${env.sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
const arm = (method: string, path: string, body?: unknown) =>
  sim.request(method, `${path}?api-version=2026-04-01`, {
    ...(body !== undefined ? { body } : {}),
    headers: { authorization: "Bearer test" },
  });

async function run(operation: string, description: unknown) {
  const submitted = await env.api("POST", `/azure/ops/${operation}`, description);
  if (submitted.status !== 202) throw new Error(`${operation}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return env.waitForTask(submitted.body.id);
}

async function setKind(name: string, kind: Record<string, unknown>) {
  const res = await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}/kind`, kind);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
}

/** The simulator's own view: VMs with their pools, power state and model. */
async function azureView(name: string) {
  const { body } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
  const vms = body.vms.map((vm: Json) => ({
    id: vm.instanceId as string,
    state: vm.properties.provisioningState as string,
    power: (vm.properties.instanceView?.statuses ?? []).find((s: Json) => s.code.startsWith("PowerState/"))?.code as
      string | undefined,
    inPool: (vm.properties.networkProfileConfiguration?.networkInterfaceConfigurations ?? []).some((nic: Json) =>
      nic.properties.ipConfigurations.some(
        (ipc: Json) => (ipc.properties.loadBalancerBackendAddressPools ?? []).length > 0,
      ),
    ) as boolean,
    latestModelApplied: vm.properties.latestModelApplied as boolean,
  }));
  return {
    vmss: body.vmss,
    vms,
    capacity: body.vmss.sku.capacity as number,
    tags: (body.vmss.tags ?? {}) as Record<string, string>,
  };
}

async function repairsState(name: string): Promise<string | undefined> {
  const res = await arm("GET", `${armPath(name)}/instanceView`);
  return (res.body as Json).orchestrationServices?.find((s: Json) => s.serviceName === "AutomaticRepairs")
    ?.serviceState;
}

/** Writes, and the orchestration-service POSTs, in the order Azure received them. */
function actionsOf(calls: SimCall[]): string[] {
  return calls
    .filter((c) => writesOf([c]).length > 0 || /\/setOrchestrationServiceState$/i.test(c.path))
    .map((c) => `${c.method} ${c.path.split("/").slice(-1)[0]}`);
}

t.test(
  "Flexible orchestration with automatic repairs: an operation that would suspend them refuses before writing, saying why, and Azure's scale set is as it was",
  async (t) => {
    const name = "web-prod-v002";
    await setKind(name, { orchestrationMode: "Flexible", automaticRepairs: true });
    const before = await azureView(name);
    // The operations on Flexible sets are tested on Flexible VMs in test/flexible-operations.test.ts.
    const cases: [string, Record<string, unknown>][] = [["rollingUpgrade", { tags: { release: "2" } }]];
    await env.simControl("DELETE", "/_sim/calls");
    for (const [operation, extra] of cases) {
      const task = await run(operation, demo(name, extra));
      t.equal(task.state, "failed", operation);
      t.equal(task.status.retryable, false, `${operation}: the same request can never succeed`);
      t.match(
        task.status.status,
        /uses Flexible orchestration with automatic repairs enabled: .*nothing was written/,
        `${operation} says why`,
      );
    }
    const dry = await env.api("POST", "/azure/ops/rollingUpgrade?dryRun=true", demo(name, { tags: { release: "2" } }));
    t.equal(dry.status, 200, JSON.stringify(dry.body));
    t.match(
      dry.body.operations[0].problem,
      { cause: "FlexibleRepairsUnreadable", message: /uses Flexible orchestration with automatic repairs/ },
      "a dry run shows the refusal",
    );
    t.same(
      (await env.calls()).filter((c) => c.method !== "GET"),
      [],
      "not one write reached Azure",
    );
    const after = await azureView(name);
    t.same(after.vms, before.vms, "the same VMs, in the same pools");
    t.equal(after.capacity, before.capacity);
  },
);

t.test(
  "terminate of a protected instance fails before writing; the unprotected batch is refused with it",
  async (t) => {
    const name = "web-prod-v001";
    const res = await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}/virtualMachines/1/protection`, {
      protectFromScaleIn: true,
    });
    t.equal(res.status, 200);
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("terminateInstances", demo(name, { instanceIds: ["0", "1"] }));
    t.equal(task.state, "failed");
    t.match(
      task.status.status,
      /instance\(s\) 1 \(protectFromScaleIn\) of web-prod-v001 are protected.*nothing was deleted/,
    );
    t.same(writesOf(await env.calls()), [], "no delete was sent");
    t.same(
      (await azureView(name)).vms.map((vm: Json) => vm.id),
      ["0", "1", "2"],
      "every instance is still there",
    );

    const scaleDown = await run("scaleDown", demo(name, { instanceIds: ["1"] }));
    t.equal(scaleDown.state, "failed", "scaleDown by instance ids follows the same rule");
    const allowed = await run("terminateInstances", demo(name, { instanceIds: ["0"] }));
    t.equal(allowed.state, "succeeded", JSON.stringify(allowed.history));
    t.same(
      (await azureView(name)).vms.map((vm: Json) => vm.id),
      ["1", "2", "3"],
      "0 replaced",
    );
  },
);

t.test(
  "disable on a Rolling-policy set: no manualupgrade; done only once Azure's rollout moved every VM out of the pools",
  async (t) => {
    const name = "web-roll-v001";
    await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, {
      capacity: 5,
      loadBalanced: true,
      upgradePolicy: "Rolling",
    });
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("disableServerGroup", demo(name));
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const view = await azureView(name);
    t.same(
      view.vms.map((vm: Json) => vm.inPool),
      [false, false, false, false, false],
      "every VM left the pools when the task said done",
    );
    t.ok(
      view.vms.every((vm: Json) => vm.latestModelApplied),
      "every VM runs the new model",
    );
    t.same(
      actionsOf(await env.calls()),
      [`PATCH ${name}`],
      "the model change only: Azure rolls it out, manualupgrade is not ours to send",
    );
    const latest = await arm("GET", `${armPath(name)}/rollingUpgrades/latest`);
    t.equal((latest.body as Json).properties.runningStatus.code, "Completed", "Azure's rolling upgrade completed");
  },
);

t.test(
  "a rollout Azure stops halfway fails the task with Azure's reason; Azure shows the VMs it did not move",
  async (t) => {
    const name = "web-roll-v002";
    await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, {
      capacity: 10,
      loadBalanced: true,
      upgradePolicy: "Rolling",
    });
    await env.simControl("POST", "/_sim/faults", {
      action: "failRollout",
      method: "PATCH",
      pathContains: name,
      code: "UpgradePolicyBreached",
      message:
        "The rolling upgrade was stopped: more than maxUnhealthyUpgradedInstancePercent of the upgraded instances are unhealthy.",
    });
    const task = await run("disableServerGroup", demo(name));
    t.equal(task.state, "failed");
    t.match(task.status.status, /maxUnhealthyUpgradedInstancePercent/, "Azure's reason, in the task's words");
    const view = await azureView(name);
    const moved = view.vms.filter((vm: Json) => !vm.inPool).length;
    t.ok(moved > 0 && moved < 10, `Azure moved ${moved} of 10 VMs out of the pools before it stopped`);
    const latest = await arm("GET", `${armPath(name)}/rollingUpgrades/latest`);
    t.equal((latest.body as Json).properties.runningStatus.code, "Faulted");

    // Run again: the plan reads Azure's Faulted rollout and fails at once with its reason, writing nothing.
    await env.simControl("DELETE", "/_sim/calls");
    const again = await run("disableServerGroup", demo(name));
    t.equal(again.state, "failed");
    t.match(
      again.status.status,
      /rolling upgrade of web-roll-v002 ended Faulted \(UpgradePolicyBreached: .*\): instance\(s\) .* do not run the new model/,
    );
    t.same(writesOf(await env.calls()), [], "nothing written on a rollout Azure gave up");
  },
);

t.test(
  "a Rolling rollout that outlives the write: disable waits for it, and is done only once every VM left the pools",
  async (t) => {
    const name = "web-roll-v003";
    await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, {
      capacity: 5,
      loadBalanced: true,
      upgradePolicy: "Rolling",
    });
    await setKind(name, { rolloutAfterWrite: true });
    // A rollout of a second after the write: a task that said done when the write ended would find VMs in the pools.
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 1000 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 100 }));
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("disableServerGroup", demo(name));
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(
      history,
      /waiting for Azure to roll the removal of the backend pools out \(upgrade policy Rolling\): instance\(s\) [\d, ]+ not on the new model yet/,
      "the write ended with VMs still in the pools: the task waited",
    );
    const view = await azureView(name);
    t.same(
      view.vms.map((vm: Json) => vm.inPool),
      [false, false, false, false, false],
      "every VM had left the pools when the task said done",
    );
    t.equal(
      ((await arm("GET", `${armPath(name)}/rollingUpgrades/latest`)).body as Json).properties.runningStatus.code,
      "Completed",
    );
    t.same(actionsOf(await env.calls()), [`PATCH ${name}`], "no manualupgrade");
  },
);

t.test("a Rolling rollout Azure faults after the write succeeded: the task fails with Azure's reason", async (t) => {
  const name = "web-roll-v004";
  await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, {
    capacity: 10,
    loadBalanced: true,
    upgradePolicy: "Rolling",
  });
  await setKind(name, { rolloutAfterWrite: true });
  await env.simControl("POST", "/_sim/faults", {
    action: "failRollout",
    method: "PATCH",
    pathContains: name,
    code: "UpgradePolicyBreached",
    message: "upgraded instances unhealthy",
  });
  const task = await run("disableServerGroup", demo(name));
  t.equal(task.state, "failed", JSON.stringify(task.history));
  t.match(
    task.status.status,
    /RolloutFailed: Azure's rolling upgrade of web-roll-v004 ended Faulted \(UpgradePolicyBreached: upgraded instances unhealthy\)/,
  );
  t.equal(task.status.retryable, false);
  const moved = (await azureView(name)).vms.filter((vm: Json) => !vm.inPool).length;
  t.ok(moved > 0 && moved < 10, `Azure moved ${moved} of 10 VMs before it stopped`);
});

t.test(
  "automatic repairs: suspended before a disable takes VMs out of traffic, resumed after; the mark is gone",
  async (t) => {
    const name = "web-prod-v002";
    await setKind(name, { automaticRepairs: true });
    t.equal(await repairsState(name), "Running");
    const dry = await env.api("POST", "/azure/ops/disableServerGroup?dryRun=true", demo(name));
    t.match(
      dry.body.operations[0].write,
      {
        kind: "update",
        summary: /^mark vmss-ops\.repairs-suspended-by=\(the task\) before suspending automatic repairs/,
      },
      "a dry run shows the first write a run sends",
    );
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("disableServerGroup", demo(name));
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    t.same(
      actionsOf(await env.calls()),
      [
        `PATCH ${name}`,
        "POST setOrchestrationServiceState",
        `PATCH ${name}`,
        "POST manualupgrade",
        "POST setOrchestrationServiceState",
        `PATCH ${name}`,
      ],
      "mark, suspend, take out of the pools, roll out, resume, unmark",
    );
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(history, /suspend automatic repairs/);
    t.match(history, /resume automatic repairs, suspended by this task/);
    t.equal(await repairsState(name), "Running", "Azure repairs again");
    const view = await azureView(name);
    t.equal(view.tags["vmss-ops.repairs-suspended-by"], undefined, "no mark left");
    t.ok(
      view.vms.every((vm: Json) => !vm.inPool),
      "and the VMs are out of traffic",
    );

    await env.simControl("DELETE", "/_sim/calls");
    const enable = await run("enableServerGroup", demo(name));
    t.equal(enable.state, "succeeded");
    t.notOk(
      actionsOf(await env.calls()).some((a) => a.includes("setOrchestrationServiceState")),
      "enable puts VMs back: repairs are left running",
    );
  },
);

t.test("automatic repairs: resumed when the disable fails", async (t) => {
  const name = "web-prod-v002";
  await setKind(name, { automaticRepairs: true });
  await env.simControl("POST", "/_sim/faults", {
    action: "failOperation",
    method: "POST",
    pathContains: `${name}/manualupgrade`,
    code: "VMAgentStatusCommunicationError",
    message: "the agent did not answer",
  });
  const task = await run("disableServerGroup", demo(name));
  t.equal(task.state, "failed");
  t.match(task.status.status, /the agent did not answer/);
  t.match(
    task.history.map((h: Json) => h.status).join("\n"),
    /the operation ended unfinished: resume automatic repairs/,
  );
  t.equal(await repairsState(name), "Running", "repairs resumed although the disable failed");
  t.equal((await azureView(name)).tags["vmss-ops.repairs-suspended-by"], undefined);
});

t.test("automatic repairs suspended by someone else stay suspended", async (t) => {
  const name = "web-prod-v002";
  await setKind(name, { automaticRepairs: true });
  const suspend = await arm("POST", `${armPath(name)}/setOrchestrationServiceState`, {
    serviceName: "AutomaticRepairs",
    action: "Suspend",
  });
  t.equal(suspend.status, 200);
  await env.simControl("DELETE", "/_sim/calls");
  const task = await run("disableServerGroup", demo(name));
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.notOk(
    actionsOf(await env.calls()).some((a) => a.includes("setOrchestrationServiceState")),
    "neither suspended nor resumed by us",
  );
  t.equal(await repairsState(name), "Suspended", "left as the other party left it");
});

t.test(
  "Spot: VMs evicted during a resize are not counted as running; the task says so and reports what runs",
  async (t) => {
    const name = "web-prod-v001";
    await setKind(name, { spot: true });
    // Azure evicts one Spot VM just as the resize is sent.
    await env.simControl("POST", "/_sim/faults", {
      action: "evictSpot",
      method: "PATCH",
      pathContains: name,
      evictions: 1,
    });
    const task = await run("resizeServerGroup", demo(name, { targetSize: 5 }));
    t.equal(task.state, "failed", JSON.stringify(task.history));
    t.match(
      task.status.status,
      /capacity 5, but Azure lists 4 running instance\(s\); not running: instance\(s\) 0 \(deallocated\) \(Spot: evicted by Azure\)/,
    );
    t.equal(task.status.retryable, true);
    const result = task.resultObjects.find((r: Json) => r.type === "serverGroup");
    t.equal(result.capacity.desired, 4, "the capacity reported is what runs");
    t.equal(result.confirmed, false);
    t.equal(result.requestedCapacity, 5);
    const view = await azureView(name);
    t.equal(view.vms.length, 5, "Azure lists five VMs");
    t.same(
      view.vms.filter((vm: Json) => vm.power === "PowerState/deallocated").map((vm: Json) => vm.id),
      ["0"],
      "one of them deallocated",
    );

    // A disable does not change the capacity: it goes through, and names the evicted VM.
    const disabled = await run("disableServerGroup", demo(name));
    t.equal(disabled.state, "succeeded", JSON.stringify(disabled.history));
    t.match(
      disabled.history.map((h: Json) => h.status).join("\n"),
      /instance\(s\) 0 \(deallocated\) are listed but not running/,
    );

    // A terminate of another instance is done when that one is replaced; the evicted one is named, and not counted.
    const terminated = await run("terminateInstances", demo(name, { instanceIds: ["4"] }));
    t.equal(terminated.state, "succeeded", JSON.stringify(terminated.history));
    t.match(
      terminated.resultObjects[0],
      { capacity: { desired: 4 }, confirmed: false, requestedCapacity: 5 },
      "4 of the 5 run, the new one among them",
    );
    t.same(
      (await azureView(name)).vms.map((vm: Json) => vm.id),
      ["0", "1", "2", "3", "5"],
    );
  },
);

t.test("automatic repairs: suspended while a rolling upgrade replaces instances, resumed after", async (t) => {
  const name = "web-prod-v001";
  await setKind(name, { automaticRepairs: true });
  await env.simControl("DELETE", "/_sim/calls");
  const task = await run(
    "rollingUpgrade",
    demo(name, {
      image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" },
      maxSurge: 3,
    }),
  );
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  const actions = actionsOf(await env.calls());
  const suspend = actions.indexOf("POST setOrchestrationServiceState");
  const resume = actions.lastIndexOf("POST setOrchestrationServiceState");
  const deletes = actions.map((a, i) => (a === "POST delete" ? i : -1)).filter((i) => i >= 0);
  t.ok(suspend >= 0 && resume > suspend, `suspended, then resumed: ${actions.join(", ")}`);
  t.ok(
    deletes.length > 0 && deletes.every((i) => i > suspend && i < resume),
    "every instance replaced while repairs were suspended",
  );
  t.equal(await repairsState(name), "Running");
  t.equal((await azureView(name)).tags["vmss-ops.repairs-suspended-by"], undefined);
});

t.test("automatic repairs: resumed when the disable is canceled", async (t) => {
  const name = "web-prod-v002";
  await setKind(name, { automaticRepairs: true });
  // A network change that takes a second: the cancel arrives while it is in flight, and takes effect once it ends.
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 1000 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 100 }));
  const submitted = await env.api("POST", "/azure/ops/disableServerGroup", demo(name));
  await waitFor(
    async () => {
      const { body } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
      return body.inFlight?.kind === "update" && body.vmss.tags?.["vmss-ops.disabled"] === "pools";
    },
    { what: `the network change of ${name}'s disable in flight`, intervalMs: 5 },
  );
  t.equal(await repairsState(name), "Suspended", "suspended while the network change runs");
  t.equal((await env.api("POST", `/task/${submitted.body.id}/cancel`)).status, 200);
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.state, "canceled", JSON.stringify(task.history));
  t.match(
    task.history.map((h: Json) => h.status).join("\n"),
    /the operation ended unfinished: resume automatic repairs/,
  );
  t.equal(await repairsState(name), "Running", "repairs resumed although the disable was canceled");
  t.equal((await azureView(name)).tags["vmss-ops.repairs-suspended-by"], undefined);
});
