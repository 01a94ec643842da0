// The Azure "Deploy" stage as a pipeline team runs it: configured in Deck, run by Orca with a strategy, against this
// service and the simulator (which is Azure, its Microsoft.Network included). The bodies are the exact JSON that
// Deck's transformer and Orca's tasks produce; Orca's steps are testkit/orca.ts, each citing spinnaker/orca.
//
// deck: packages/azure/src/serverGroup/serverGroup.transformer.js (convertServerGroupCommandToDeployConfiguration,
// l.37-143), ported as it is in testkit/deck.ts. orca (paths under orca-clouddriver/src/main/):
// CreateServerGroupStage.groovy l.69-92, DetermineSourceServerGroupTask.groovy l.51-82, AzureServerGroupCreator.groovy
// l.33-52, RedBlackStrategy.groovy l.58-153, HighlanderStrategy.groovy l.46-75, RollingRedBlackStrategy.groovy
// l.67-277.
//
// After every step of every case, the simulator's load-balancer state must show the cluster serving from at least
// one healthy instance: a deploy never leaves a cluster with nothing in traffic.
import t, { type Test } from "tap";
import { bake, bakeImage, convertServerGroupCommandToDeployConfiguration, deckCommand } from "../testkit/deck.ts";
import { cleanupBase, newStage, Orca, OrcaStageError, type Stage } from "../testkit/orca.ts";
import { startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";
import { SimulatorControl } from "vmss-simulator";
import { sample } from "../testkit/wait-for.ts";

// A second account keeps its VM admin in Key Vault, as clouddriver-azure's accounts do (the simulator's demo-kv).
const env = await startTestEnv({
  writeDurationMs: 60,
  mapEnv: (e, sim) => ({
    ...e,
    ACCOUNTS: JSON.stringify([
      {
        name: "vaulted",
        subscriptionId: sim.subscriptionId,
        credential: "simulator",
        defaultResourceGroup: "demo-rg",
        serverGroupResourceGroup: "account",
        regions: ["eastus"],
        vmAdmin: { keyVaultUrl: `${sim.url}/keyvaults/demo-kv` },
      },
    ]),
  }),
});
t.teardown(() => env.close());
const orca = new Orca(env.api, { pollMs: 20 });
const arm = new SimulatorControl(env.sim);
const REGION = "eastus";
const LB = "loadBalancers/demo-rg/demo-lb";
const AGW = "applicationGateways/demo-rg/demo-appgw";
const sub = env.sim.subscriptionId;
const net = `/subscriptions/${sub}/resourceGroups/demo-rg/providers/Microsoft.Network`;

// ---- the load balancer's view ----

interface Member {
  scaleSet: string;
  instanceId: string;
  health: string | null;
  serving: boolean;
  pool: string;
}

async function members(balancer = LB): Promise<Member[]> {
  const res = await env.simControl("GET", `/_sim/network/${balancer}/traffic`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return (res.body.pools as { name: string; members: Omit<Member, "pool">[] }[]).flatMap((p) =>
    p.members.map((m) => ({ ...m, pool: p.name })),
  );
}

const ofCluster = (cluster: string) => (m: Member) => new RegExp(`^${cluster}-v\\d{3}$`).test(m.scaleSet);

async function serving(cluster: string, balancer = LB): Promise<Member[]> {
  return (await members(balancer)).filter(ofCluster(cluster)).filter((m) => m.serving);
}

/**
 * The check run after every Orca step: the cluster serves from at least one healthy instance. Between the steps a
 * sampler reads the load balancer all along; stop() asserts that no sample found the cluster serving from nothing.
 */
function trafficCheck(t: { ok(value: unknown, message: string): unknown }, cluster: string, balancer = LB) {
  const seen: { step: string; serving: number }[] = [];
  let last = "start";
  const after = async (step: string) => {
    const n = (await serving(cluster, balancer)).length;
    seen.push({ step, serving: n });
    last = step;
    t.ok(n > 0, `after ${step}: ${n} instance(s) of ${cluster} in traffic`);
  };
  const sampler = sample(async () => ({ during: last, serving: (await serving(cluster, balancer)).length }));
  const stop = async () => {
    const samples = await sampler.stop();
    const empty = samples.filter((s) => s.serving === 0);
    t.ok(
      samples.length > 0 && empty.length === 0,
      `${samples.length} samples of the load balancer between the steps, none with ${cluster} serving from nothing${empty.length ? `: ${JSON.stringify(empty.slice(0, 3))}` : ""}`,
    );
  };
  return { after, seen, stop };
}

/** The deploy stage's context as Orca has it: Deck's configuration, then DetermineSourceServerGroupTask's output. */
async function deployContext(config: Record<string, Json>, extra: Record<string, unknown> = {}): Promise<Stage> {
  const stage = newStage({ ...config, ...extra });
  await orca.determineSourceServerGroup(stage);
  return stage;
}

/** A first deploy into an empty cluster: nothing to check traffic against before it. */
async function firstDeploy(application: string, extra: Record<string, Json> = {}) {
  const stage = await deployContext(convertServerGroupCommandToDeployConfiguration(deckCommand(application, extra)));
  const task = await orca.deployStage(stage, { bake: await bakeImage(env.sim, application) });
  return { stage, task, name: stage.context["deploy.server.groups"][REGION][0] as string };
}

const scaleSet = async (name: string) => env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`);

// ---- the cases ----

t.test(
  "GET /features/stages: Clouddriver's list, which Orca reads while planning the deploy (CreateServerGroupStage.groovy l.70)",
  async (t) => {
    const res = await env.api("GET", "/features/stages");
    t.equal(res.status, 200);
    t.ok(res.body.some((s: Json) => s.name === "createServerGroup" && s.enabled === true));
    t.equal(await orca.isStageAvailable("upsertEntityTags"), false, "no entity tags: Orca skips tagServerGroup");
  },
);

t.test(
  "first deploy into an empty cluster, from an ad-hoc marketplace image, with no credentials in the request",
  async (t) => {
    const command = deckCommand("first", {
      viewState: { mode: "create" },
      // serverGroupCommandBuilder: the chosen marketplace image, isCustom false (transformer l.114-116 keeps it)
      selectedImage: {
        publisher: "Canonical",
        offer: "ubuntu-24_04-lts",
        sku: "server",
        version: "latest",
        isCustom: false,
        imageName: "Ubuntu 24.04",
        ostype: "Linux",
        region: REGION,
        uri: "",
      },
    });
    const config = convertServerGroupCommandToDeployConfiguration(command);
    t.notOk(
      "osConfig" in config && (config.osConfig.sshPublicKeys || config.osConfig.adminPasswordEnv),
      "Deck sends no VM credentials",
    );
    const stage = await deployContext(config);
    t.same(stage.context.source, {}, "DetermineSourceServerGroupTask.groovy l.80: {} for an empty cluster");
    const task = await orca.deployStage(stage);
    t.same(stage.context["deploy.server.groups"], { [REGION]: ["first-prod-v000"] });
    t.match(task.resultObjects[0], {
      serverGroupName: "first-prod-v000",
      disabled: false,
      instanceCount: 2,
      capacity: { min: 2, max: 2, desired: 2 },
    });
    const vmss = (await scaleSet("first-prod-v000")).body.vmss;
    const os = vmss.properties.virtualMachineProfile.osProfile;
    t.equal(os.adminUsername, "azureuser", "the account's admin user");
    t.match(os.linuxConfiguration.ssh.publicKeys[0].keyData, /^ssh-ed25519 /, "the account's SSH key");
    t.same(vmss.properties.virtualMachineProfile.storageProfile.imageReference, {
      publisher: "Canonical",
      offer: "ubuntu-24_04-lts",
      sku: "server",
      version: "latest",
    });
    t.equal(
      vmss.properties.virtualMachineProfile.extensionProfile,
      undefined,
      "an empty commandToExecute is no script",
    );
    t.equal((await serving("first-prod")).length, 2, "both instances healthy in traffic when the stage ends");
  },
);

t.test(
  "an account whose VM admin is in Key Vault: VMUsername and VMSshPublicKey read when the deploy is prepared",
  async (t) => {
    const config = convertServerGroupCommandToDeployConfiguration(deckCommand("vault", { credentials: "vaulted" }));
    const stage = await deployContext(config);
    const task = await orca.deployStage(stage, { bake: await bakeImage(env.sim, "vault") });
    t.ok(
      task.history.some((h: Json) => /VM admin azureuser from Key Vault/.test(h.status)),
      "the history says where the admin came from",
    );
    const os = (await scaleSet("vault-prod-v000")).body.vmss.properties.virtualMachineProfile.osProfile;
    t.equal(os.adminUsername, "azureuser");
    t.match(os.linuxConfiguration.ssh.publicKeys[0].keyData, /DemoVaultKey/, "the vault's key");
    t.equal((await serving("vault-prod")).length, 2);
  },
);

t.test(
  "a named load balancer: the new group's own backend pool and NAT pool in it, the subnet and security group by name",
  async (t) => {
    const { name } = await firstDeploy("named");
    const read = await env.simControl("GET", `/_sim/network/${LB}/traffic`);
    t.ok(
      read.body.pools.some((p: Json) => p.name === name.toLowerCase() || p.name === name),
      "a pool named after the group",
    );
    const vmss = (await scaleSet(name)).body.vmss;
    const nic = vmss.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0];
    const ipc = nic.properties.ipConfigurations[0].properties;
    t.equal(ipc.subnet.id, `${net}/virtualNetworks/demo-rg-vnet/subnets/default`, "the subnet, resolved by name");
    t.same(
      ipc.loadBalancerBackendAddressPools,
      [{ id: `${net}/loadBalancers/demo-lb/backendAddressPools/${name}` }],
      "its own pool",
    );
    t.same(
      ipc.loadBalancerInboundNatPools,
      [{ id: `${net}/loadBalancers/demo-lb/inboundNatPools/${name}` }],
      "and its own inbound NAT pool",
    );
    const lbRead = await env.simControl("GET", `/_sim/network/${LB}/traffic`);
    t.equal(lbRead.status, 200);
    t.equal(
      nic.properties.networkSecurityGroup.id,
      `${net}/networkSecurityGroups/demo-nsg`,
      "the security group, by name",
    );
    const calls = await env.calls();
    const lbWrites = calls.filter((c) => c.method === "PUT" && /loadBalancers\/demo-lb$/i.test(c.path));
    t.ok(lbWrites.length >= 1, "the pool was added to the load balancer");
  },
);

t.test("an application gateway: the new group's own backend pool in the gateway", async (t) => {
  const { name } = await firstDeploy("gw", {
    loadBalancerName: "demo-appgw",
    loadBalancerType: "Azure Application Gateway",
  });
  const vmss = (await scaleSet(name)).body.vmss;
  const ipc =
    vmss.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].properties
      .ipConfigurations[0].properties;
  t.same(ipc.applicationGatewayBackendAddressPools, [
    { id: `${net}/applicationGateways/demo-appgw/backendAddressPools/${name}` },
  ]);
  t.equal((await serving("gw-prod", AGW)).length, 2, "both instances behind the gateway");
});

t.test("a missing load balancer fails the stage before anything is created", async (t) => {
  const baked = await bakeImage(env.sim, "nolb");
  const before = writesOf(await env.calls()).length;
  const stage = await deployContext(
    convertServerGroupCommandToDeployConfiguration(deckCommand("nolb", { loadBalancerName: "nope-lb" })),
  );
  const failed = await orca.deployStage(stage, { bake: baked }).catch((err) => err);
  t.ok(failed instanceof OrcaStageError, String(failed));
  t.match(String(failed.message), /Selected Load Balancer nope-lb does not exist/);
  const writes = writesOf(await env.calls()).slice(before);
  t.same(
    writes.filter((c) => /nolb|nope-lb/i.test(c.path)),
    [],
    "no scale set, no load balancer written",
  );
  t.equal((await scaleSet("nolb-prod-v000")).status, 404);
});

t.test(
  "red/black into a serving cluster: the new group serves with every instance healthy in its own pool, the older one disabled",
  async (t) => {
    const { name: v000 } = await firstDeploy("rb");
    const check = trafficCheck(t, "rb-prod");
    await check.after("the cluster before the deploy");
    const stage = await deployContext(convertServerGroupCommandToDeployConfiguration(deckCommand("rb")));
    t.match(stage.context.source, { serverGroupName: v000, account: "demo", region: REGION, useSourceCapacity: false });
    const task = await orca.deployStage(stage, { bake: await bakeImage(env.sim, "rb"), after: check.after });
    const [v001] = stage.context["deploy.server.groups"][REGION];
    t.equal(v001, "rb-prod-v001");
    t.match(task.resultObjects[0], { disabled: false, ancestorServerGroupNameByRegion: { [REGION]: v000 } });
    // RedBlackStrategy.groovy l.111-122: disableCluster, keeping one enabled group (the one just deployed).
    const disabled = await orca.disableCluster(cleanupBase(REGION, "rb"), [v001], check.after);
    t.same(disabled, [v000]);
    const now = await members();
    const mine = now.filter(ofCluster("rb-prod"));
    t.same(
      mine.filter((m) => m.scaleSet === v001).map((m) => [m.pool, m.serving, m.health]),
      [
        [v001, true, "HealthState/healthy"],
        [v001, true, "HealthState/healthy"],
      ],
      "v001 serves, healthy, from its own pool",
    );
    t.same(
      mine.filter((m) => m.scaleSet === v000),
      [],
      "v000 left its pool",
    );
    const cluster = (await env.api("GET", "/applications/rb/clusters/demo/rb-prod/azure")).body;
    t.same(cluster.serverGroups.map((sg: Json) => [sg.name, sg.disabled]).sort(), [
      [v000, true],
      [v001, false],
    ]);
    await check.stop();
  },
);

t.test("highlander: the older groups destroyed, the new one serving", async (t) => {
  const { name: v000 } = await firstDeploy("hl", { strategy: "highlander" });
  const check = trafficCheck(t, "hl-prod");
  const stage = await deployContext(
    convertServerGroupCommandToDeployConfiguration(deckCommand("hl", { strategy: "highlander" })),
  );
  await orca.deployStage(stage, { bake: await bakeImage(env.sim, "hl"), after: check.after });
  const [v001] = stage.context["deploy.server.groups"][REGION];
  // HighlanderStrategy.groovy l.48-57: shrinkCluster to 1, active ones too.
  const destroyed = await orca.shrinkCluster(cleanupBase(REGION, "hl"), [v001], check.after);
  t.same(destroyed, [v000]);
  t.equal((await scaleSet(v000)).status, 404);
  t.equal((await serving("hl-prod")).length, 2, "v001 serves alone");
  await check.stop();
});

t.test(
  "a new group that never becomes healthy: the stage fails, the older group serves and never left its pool",
  async (t) => {
    const { name: v000 } = await firstDeploy("sick");
    // The next group's application will not answer the load balancer's probe.
    await env.simControl("PUT", "/_sim/network/probeFailures/demo-rg/sick-prod-v001");
    const sampler = sample(async () => {
      const all = (await members()).filter((m) => m.scaleSet === v000);
      return { v000: all.filter((m) => m.serving).length, v000Members: all.length };
    });
    const check = trafficCheck(t, "sick-prod");
    // healthyTimeoutSeconds is this service's bound; Deck does not send it (the default is ten minutes).
    const stage = await deployContext(convertServerGroupCommandToDeployConfiguration(deckCommand("sick")), {
      healthyTimeoutSeconds: 2,
    });
    const failed = await orca
      .deployStage(stage, { bake: await bakeImage(env.sim, "sick"), after: check.after })
      .catch((err) => err);
    const samples = await sampler.stop();
    t.ok(failed instanceof OrcaStageError, "MonitorKatoTask ends the stage TERMINAL: the strategy never runs");
    t.match(String(failed.message), /ServerGroupNotHealthy|not healthy/);
    await check.after("the failed stage");
    await check.stop();
    t.ok(samples.length > 5, `${samples.length} samples`);
    t.same(
      samples.filter((s) => s.v000 !== 2 || s.v000Members !== 2),
      [],
      "v000: both instances in its pool and serving at every sample",
    );
    const v001 = (await env.api("GET", `/serverGroups/demo/${REGION}/sick-prod-v001`)).body;
    t.equal(v001.disabled, true, "the new group is left out of traffic");
    t.same(
      (await members()).filter((m) => m.scaleSet === "sick-prod-v001"),
      [],
      "none of its instances is in a pool",
    );
    await env.simControl("DELETE", "/_sim/network/probeFailures/demo-rg/sick-prod-v001");
  },
);

/**
 * Orca's rolling red/black 10/50/100 (RollingRedBlackStrategy.groovy) of a 4-instance cluster of `application`:
 * the share each step leaves serving in each group, as the load balancer holds it, and the end with only the new
 * group serving.
 */
async function rollingRedBlack10to100(t: Test, application: string, extraConfig: Record<string, Json>) {
  const SIZE = 4;
  const context = (extra: Record<string, Json> = {}) => {
    const config = convertServerGroupCommandToDeployConfiguration(
      deckCommand(application, { sku: { capacity: SIZE }, ...extra }),
    );
    return deployContext({ ...config, ...extraConfig });
  };
  const cluster = `${application}-prod`;
  const first = await context();
  await orca.deployStage(first, { bake: await bakeImage(env.sim, application) });
  const [v000] = first.context["deploy.server.groups"][REGION];
  const check = trafficCheck(t, cluster);
  const byGroup = async () => {
    const now = await serving(cluster);
    return Object.fromEntries(
      [...new Set(now.map((m) => m.scaleSet))].sort().map((g) => [g, now.filter((m) => m.scaleSet === g).length]),
    );
  };
  t.same(await byGroup(), { [v000]: SIZE }, "the source serves whole");

  const stage = await context({ strategy: "rollingredblack" });
  stage.context.targetPercentages = [10, 50, 100];
  // RollingRedBlackStrategy.groovy l.72-91: useSourceCapacity off, capacity saved, the new group created at 0.
  stage.context.useSourceCapacity = false;
  stage.context.savedCapacity = stage.context.capacity;
  stage.context.capacity = { min: 0, max: 0, desired: 0 };
  await orca.deployStage(stage, { bake: await bakeImage(env.sim, application), after: check.after });
  const [v001] = stage.context["deploy.server.groups"][REGION];

  const seen: Record<string, Record<string, number>> = {};
  const { disables } = await orca.rollingRedBlack({
    base: cleanupBase(REGION, application),
    source: v000,
    deployed: v001,
    savedCapacity: stage.context.savedCapacity,
    targetPercentages: stage.context.targetPercentages,
    after: async (step) => {
      await check.after(step);
      seen[step] = await byGroup();
    },
  });
  // ceil(4 × p / 100) of each: 1, 2, 4 (EnableDisablePercentageCategorizer.java l.28; ResizeStrategySupport l.122)
  t.same(seen[`grow ${v001} to 10 %`], { [v000]: 4, [v001]: 1 });
  t.same(seen[`disable 10 % of ${v000}`], { [v000]: 3, [v001]: 1 });
  t.same(seen[`grow ${v001} to 50 %`], { [v000]: 3, [v001]: 2 });
  t.same(seen[`disable 50 % of ${v000}`], { [v000]: 2, [v001]: 2 });
  t.same(seen[`grow ${v001} to 100 %`], { [v000]: 2, [v001]: 4 });
  t.same(seen[`disable 100 % of ${v000}`], { [v001]: 4 });
  t.same(await byGroup(), { [v001]: SIZE }, "only the new group serves");

  // What Orca read back: a partial disable names the instances out of traffic, and leaves the group enabled.
  const results = disables.map((task) => (task.resultObjects as Json[])[0]);
  t.same(
    results.map((r) => [r.instanceIdsToDisable?.length, r.disabled]),
    [
      [1, false],
      [2, false],
      [undefined, true],
    ],
  );
  const source = (await env.api("GET", `/serverGroups/demo/${REGION}/${v000}`)).body;
  t.match(source, { disabled: true, capacity: { desired: 0 } }, "the source disabled whole, then scaled down");
  await check.stop();
}

t.test(
  "rolling red/black 10/50/100 on a Uniform cluster, as Orca runs it: each step takes its share of instances out (each instance's own network configuration), and only the new group serves at the end",
  (t) => rollingRedBlack10to100(t, "rrb", {}),
);

t.test(
  "rolling red/black 10/50/100 on a Flexible cluster, as Orca runs it: each step moves its share of traffic, and only the new group serves at the end",
  // Deck's Azure form has no orchestration mode: the pipeline's JSON carries it, and Orca sends the stage context as
  // the description (AzureServerGroupCreator.groovy l.33-52).
  (t) => rollingRedBlack10to100(t, "rrbf", { orchestrationMode: "Flexible" }),
);

t.test(
  "a resize as Orca merges it (ScaleExactResizeStrategy.groovy l.51-77): {min 2, max 2, desired 1} resizes to 1",
  async (t) => {
    const { name } = await firstDeploy("merge");
    const stage = newStage({ ...cleanupBase(REGION, "merge"), "deploy.server.groups": { [REGION]: [name] } });
    const id = await orca.requestOperations(stage, [
      {
        resizeServerGroup: {
          ...cleanupBase(REGION, "merge"),
          serverGroupName: name,
          capacity: { min: 2, max: 2, desired: 1 },
        },
      },
    ]);
    const task = await orca.monitorKato(stage, id);
    t.same(
      task.resultObjects[0].capacity,
      { min: 1, max: 2, desired: 1 },
      "min lowered to desired: the recorded bounds stay consistent",
    );
    t.equal((await serving("merge-prod")).length, 1);
  },
);

t.test("Deck's body is accepted whole; what cannot be honoured is a 400 naming the field", async (t) => {
  const config = convertServerGroupCommandToDeployConfiguration(deckCommand("bad"));
  // No bake stage before the deploy: the placeholder image has no uri.
  const noBake = await env.api("POST", "/azure/ops/createServerGroup", { ...config, source: {} });
  t.equal(noBake.status, 400);
  t.match(noBake.body.details, [{ field: "image.uri" }]);
  const identities = await env.api("POST", "/azure/ops/createServerGroup", {
    ...config,
    userAssignedIdentities: "demo-identity,/subscriptions/x/id",
    image: { isCustom: true, uri: bake(sub, "bad").imageId },
  });
  t.equal(identities.status, 400);
  t.match(identities.body.details, [{ field: "userAssignedIdentities", message: /"\/subscriptions\/x\/id"/ }]);
});

// Deck's user-assigned identities are a text field (advancedSettingsSelector.directive.html l.63), passed through
// by the transformer (l.100) as clouddriver-azure takes them: a comma-separated String of names in the server group's
// resource group (AzureServerGroupDescription.groovy l.80; AzureServerGroupResourceTemplate.groovy l.489-495).
// useSystemManagedIdentity is clouddriver-azure's Boolean (AzureServerGroupDescription.groovy l.79), which Deck
// has no control for: a pipeline's JSON carries it in the stage, and Orca sends the stage context whole.
t.test(
  "identities as Deck and Clouddriver send them: the names in a text field, the system-assigned switch",
  async (t) => {
    const identityId = `/subscriptions/${sub}/resourceGroups/demo-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/demo-identity`;
    const { task, name } = await firstDeploy("ident", {
      userAssignedIdentities: "demo-identity",
      zonesEnabled: true,
      zones: ["1", "2"],
    });
    t.match(task.resultObjects[0], { serverGroupNames: [`${REGION}:${name}`] });
    const vmss = (await scaleSet(name)).body.vmss;
    const identity: Json = (
      await arm.request("GET", `${identityId}?api-version=2023-01-31`, { headers: { authorization: "Bearer test" } })
    ).body;
    t.same(
      vmss.identity,
      {
        type: "UserAssigned",
        userAssignedIdentities: {
          [identityId]: { principalId: identity.properties.principalId, clientId: identity.properties.clientId },
        },
      },
      "the identity, with the principal and client id Azure reports for it",
    );
    t.same(vmss.zones, ["1", "2"], "zonesEnabled: the zones");
    const zonesOfVms = (await scaleSet(name)).body.vms.map((vm: Json) => vm.zones?.[0]);
    t.same([...new Set(zonesOfVms)].sort(), ["1", "2"], "its VMs spread over them");

    // Deck has no control for it (its transformer drops it): the stage's JSON carries it, Orca sends it on.
    const stage = await deployContext(
      convertServerGroupCommandToDeployConfiguration(
        deckCommand("sysid", { userAssignedIdentities: identityId, zonesEnabled: false, zones: ["1"] }),
      ),
      { useSystemManagedIdentity: true },
    );
    const both = { task: await orca.deployStage(stage, { bake: await bakeImage(env.sim, "sysid") }), name: "" };
    both.name = stage.context["deploy.server.groups"][REGION][0];
    t.match(both.task.resultObjects[0], { serverGroupNames: [`${REGION}:${both.name}`] });
    const second = (await scaleSet(both.name)).body.vmss;
    t.equal(second.identity.type, "SystemAssigned, UserAssigned");
    t.match(second.identity.principalId, /^[0-9a-f-]{36}$/, "its own principal");
    t.ok(identityId in second.identity.userAssignedIdentities);
    t.notOk("zones" in second, "zonesEnabled false: no zones, whatever zones holds");
  },
);

t.test(
  "a user-assigned identity that does not exist fails the deploy before anything is written, naming it",
  async (t) => {
    const before = (await env.calls()).length;
    const stage = await deployContext(
      convertServerGroupCommandToDeployConfiguration(
        deckCommand("noid", { userAssignedIdentities: "demo-identity,nope-identity" }),
      ),
    );
    const failed = await orca
      .deployStage(stage, { bake: await bakeImage(env.sim, "noid") })
      .catch((err: unknown) => err);
    t.ok(failed instanceof OrcaStageError, String(failed));
    t.match(
      String((failed as Error).message),
      /IdentityNotFound: user-assigned identity nope-identity \(\/subscriptions\/[^)]+\/userAssignedIdentities\/nope-identity\) does not exist/,
    );
    const writes = writesOf((await env.calls()).slice(before));
    t.same(
      writes.filter((c) => /virtualMachineScaleSets/i.test(c.path)),
      [],
      "no scale set was written",
    );
  },
);

// Spot, a Rolling upgrade policy with its batch settings, automatic repairs and the scale-in policy: neither Deck's
// transformer (l.37-143: it sends upgradePolicy "Manual" and healthSettings, nothing of the rest) nor
// clouddriver-azure's AzureServerGroupDescription has a field for them, so a pipeline that wants them carries them in
// its stage JSON, under Azure's REST names, and Orca sends the stage context whole (AzureServerGroupCreator.groovy
// l.33-52: the operation is the stage context). What the simulator holds afterwards is the judge.
t.test(
  "create-time settings as a pipeline's stage JSON carries them: Spot, Rolling with its batches, repairs, scale-in",
  async (t) => {
    const stage = await deployContext(
      convertServerGroupCommandToDeployConfiguration(
        deckCommand("spotty", { healthSettings: { protocol: "http", port: "8080", requestPath: "/health" } }),
      ),
      {
        priority: "Spot",
        evictionPolicy: "Deallocate",
        maxPrice: -1,
        upgradePolicy: "Rolling",
        rollingUpgradePolicy: { maxBatchInstancePercent: 50, pauseTimeBetweenBatches: "PT5S" },
        automaticRepairsPolicy: { enabled: true, gracePeriod: "PT15M", repairAction: "Replace" },
        scaleInPolicy: { rules: ["OldestVM"] },
      },
    );
    const task = await orca.deployStage(stage, { bake: await bakeImage(env.sim, "spotty") });
    const name = stage.context["deploy.server.groups"][REGION][0] as string;
    t.match(task.resultObjects[0], { serverGroupNames: [`${REGION}:${name}`] });
    const p = (await scaleSet(name)).body.vmss.properties;
    t.match(p.virtualMachineProfile, {
      priority: "Spot",
      evictionPolicy: "Deallocate",
      billingProfile: { maxPrice: -1 },
    });
    t.same(p.upgradePolicy, {
      mode: "Rolling",
      rollingUpgradePolicy: { maxBatchInstancePercent: 50, pauseTimeBetweenBatches: "PT5S" },
    });
    t.same(p.automaticRepairsPolicy, { enabled: true, gracePeriod: "PT15M", repairAction: "Replace" });
    t.same(p.scaleInPolicy, { rules: ["OldestVM"] });
    t.match(
      p.virtualMachineProfile.extensionProfile.extensions.map((e: Json) => e.properties.type),
      ["ApplicationHealthLinux"],
      "the Application Health extension repairs and the rolling policy judge by",
    );
  },
);

t.test("create-time settings that Azure would refuse together are a 400 before anything is written", async (t) => {
  const before = (await env.calls()).length;
  const config = convertServerGroupCommandToDeployConfiguration(deckCommand("norepair"));
  const res = await env.api("POST", "/azure/ops/createServerGroup", {
    ...config,
    image: { isCustom: true, uri: bake(sub, "norepair").imageId },
    healthSettings: undefined,
    automaticRepairsPolicy: { enabled: true },
    evictionPolicy: "Delete",
  });
  t.equal(res.status, 400);
  t.same(
    res.body.details.map((d: Json) => d.field).sort(),
    ["evictionPolicy", "healthSettings"],
    "an eviction policy needs Spot; repairs need healthSettings",
  );
  t.same(writesOf((await env.calls()).slice(before)), [], "nothing written");
});
