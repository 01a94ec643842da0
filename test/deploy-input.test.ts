// The pure pieces of a deploy: how Deck's and Orca's placeholders are read (deck serverGroup.transformer.js
// l.37-143, orca DetermineSourceServerGroupTask.groovy l.69-81), the new group's pools in a load balancer
// (clouddriver-azure CreateAzureServerGroupWithAzureLoadBalancerAtomicOperation.java l.187-219), the account's VM
// admin and resource-group settings, and the rules for partial disables and merged resizes.
import t from "tap";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/startup-config.ts";
import { accountVmAdmin, VmAdminUnavailable } from "../src/azure/accounts.ts";
import {
  askedDesired,
  deployCapacity,
  deployProblems,
  identityId,
  identityRefs,
  namedSource,
  normalImage,
  scriptOf,
  wantsSystemIdentity,
} from "../src/operations/create/deploy-input.ts";
import { createTimeSettingProblems, zonesOf } from "../src/operations/create/create-time-settings.ts";
import { balancerOf, withGroupGatewayPool, withGroupPools } from "../src/operations/create/network-by-name.ts";
import { mergedCapacity } from "../src/operations/resize-server-group.ts";
import { resourceGroupOf } from "../src/naming/frigga.ts";
import { instanceHealth } from "../src/clouddriver/health.ts";

const SUB = "00000000-0000-4000-8000-000000000001";

t.test("the pipeline placeholder image: \"\" is absent, isCustom 'true' is true (transformer l.40-51)", async (t) => {
  const placeholder = {
    imageName: "",
    isCustom: "true" as const,
    publisher: "",
    offer: "",
    sku: "",
    version: "",
    uri: "",
    ostype: "",
  };
  t.same(normalImage(placeholder), { isCustom: true });
  t.match(
    deployProblems({ image: placeholder, sku: { name: "Standard_B2s", capacity: 2 } }, { clone: false }),
    [{ field: "image.uri" }],
    "no bake: the uri is missing",
  );
  // AzureServerGroupCreator.groovy l.44-49 fills it from the bake.
  const baked = {
    ...placeholder,
    isCustom: true,
    uri: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/images/app-1",
    ostype: "Linux",
    imageName: "app-1",
  };
  t.same(normalImage(baked), { isCustom: true, uri: baked.uri, imageName: "app-1", ostype: "Linux" });
  t.same(
    deployProblems(
      { image: baked, sku: { name: "Standard_B2s", capacity: 2 }, capacity: { min: 2, max: 2 } },
      { clone: false },
    ),
    [],
  );
  t.same(
    normalImage({ publisher: "Canonical", offer: "o", sku: "s", version: "", isCustom: false }),
    { publisher: "Canonical", offer: "o", sku: "s" },
    "ad hoc marketplace: isCustom false, version absent",
  );
});

t.test("capacity: sku.capacity is the size; capacity.desired wins; useSourceCapacity takes the source's", async (t) => {
  t.equal(askedDesired({ capacity: { min: 2, max: 2 }, sku: { capacity: 2 } }), 2);
  t.same(deployCapacity({ capacity: { min: 2, max: 2 }, sku: { capacity: 2 } }), { min: 2, max: 2, desired: 2 });
  t.same(deployCapacity({ sku: { capacity: 3 } }), { min: 3, max: 3, desired: 3 });
  // RollingRedBlackStrategy.groovy l.83-91: capacity {0,0,0}, sku.capacity left as Deck set it.
  t.same(deployCapacity({ capacity: { min: 0, max: 0, desired: 0 }, sku: { capacity: 2 } }), {
    min: 0,
    max: 0,
    desired: 0,
  });
  t.same(deployCapacity({ sku: { capacity: 2 } }, { min: 1, max: 5, desired: 4 }), { min: 1, max: 5, desired: 4 });
  t.match(deployProblems({ image: { publisher: "p", offer: "o", sku: "s" }, sku: { name: "x" } }, { clone: false }), [
    { field: "capacity" },
  ]);
  t.same(
    deployProblems(
      {
        image: { publisher: "p", offer: "o", sku: "s" },
        sku: { name: "x" },
        source: { account: "a", region: "eastus", serverGroupName: "app-v001", useSourceCapacity: true },
      },
      { clone: false },
    ),
    [],
    "no size needed when it is the source's",
  );
  t.match(
    deployProblems(
      {
        image: { publisher: "p", offer: "o", sku: "s" },
        sku: { name: "x", capacity: 2 },
        capacity: { min: 3, max: 1 },
      },
      { clone: false },
    ),
    [{ field: "capacity.min" }, { field: "capacity.max" }],
  );
});

t.test("an empty script is none; source {} is none; identities by name or id, as a string or a list", async (t) => {
  t.equal(scriptOf({ customScriptsSettings: { commandToExecute: "" } }), undefined);
  t.equal(scriptOf({ customScriptsSettings: {} }), undefined);
  t.same(scriptOf({ customScriptsSettings: { commandToExecute: "./run.sh", fileUris: ["https://x/run.sh"] } }), {
    commandToExecute: "./run.sh",
    fileUris: ["https://x/run.sh"],
  });
  t.equal(namedSource({ source: {} }), undefined);
  t.same(namedSource({ source: { asgName: "app-v001", account: "a", region: "eastus" }, useSourceCapacity: true }), {
    account: "a",
    region: "eastus",
    serverGroupName: "app-v001",
    useSourceCapacity: true,
  });
  t.same(
    namedSource({
      source: { serverGroupName: "app-v001", account: "a", region: "eastus", useSourceCapacity: false },
      useSourceCapacity: true,
    })?.useSourceCapacity,
    false,
    "the source's own flag first (l.117-121)",
  );
  t.match(deployProblems({ userAssignedIdentities: ["/x"] }, { clone: true }), [{ field: "userAssignedIdentities" }]);
  t.same(deployProblems({ userAssignedIdentities: [] }, { clone: true }), []);
  t.same(deployProblems({ userAssignedIdentities: "" }, { clone: true }), [], "Deck's empty text field: none");
  const id = "/subscriptions/s/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/reader";
  // clouddriver-azure splits the String on ',' (AzureServerGroupResourceTemplate.groovy l.492); spaces are Deck's typing.
  t.same(identityRefs({ userAssignedIdentities: `app-id, ${id},app-id` }), [{ name: "app-id" }, { id }]);
  t.same(identityRefs({ userAssignedIdentities: [id] }), [{ id }]);
  t.equal(
    identityId({ name: "app-id" }, "s", "rg"),
    "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app-id",
    "a name is in the server group's resource group, as the template's resourceID() resolves it",
  );
  t.match(deployProblems({ userAssignedIdentities: "ok-name,x" }, { clone: false }), [
    { field: "userAssignedIdentities", message: /"x" is neither an identity's name/ },
  ]);
  t.equal(wantsSystemIdentity({ useSystemManagedIdentity: "true" }), true);
  t.equal(wantsSystemIdentity({}), undefined, "not given: a clone keeps its source's");
});

t.test("create-time settings are checked against each other with Azure's rules", async (t) => {
  const fields = (d: Parameters<typeof createTimeSettingProblems>[0], clone = false) =>
    createTimeSettingProblems(d, { clone }).map((p) => p.field);
  t.same(fields({ evictionPolicy: "Delete", maxPrice: 0.1 }), ["evictionPolicy", "maxPrice"], "Spot's only");
  t.same(fields({ priority: "Spot", evictionPolicy: "Delete", maxPrice: 0.1 }), []);
  t.same(fields({ priority: "Spot", maxPrice: 0 }), ["maxPrice"], "-1 or above 0");
  t.same(fields({ evictionPolicy: "Delete" }, true), [], "a clone's source may be Spot");
  t.same(fields({ rollingUpgradePolicy: { maxBatchInstancePercent: 50 } }), ["rollingUpgradePolicy"], "with Rolling");
  t.same(fields({ upgradePolicy: "Rolling" }), ["healthSettings"], "a rolling upgrade watches health");
  t.same(fields({ automaticRepairsPolicy: { enabled: true } }), ["healthSettings"], "repairs judge by health");
  t.same(
    fields({
      upgradePolicy: "Rolling",
      healthSettings: {},
      automaticRepairsPolicy: { enabled: true, gracePeriod: "PT5M" },
    }),
    ["automaticRepairsPolicy.gracePeriod"],
    "10 to 90 minutes",
  );
  t.same(fields({ automaticRepairsPolicy: { enabled: true, gracePeriod: "PT1H30M" }, healthSettings: {} }), []);
  t.same(zonesOf({ zonesEnabled: false, zones: ["1"] }), [], "Deck's switch off: no zones");
  t.same(zonesOf({ zones: [] }), undefined, "none named");
  t.same(zonesOf({ zonesEnabled: true, zones: ["2", "3"] }), ["2", "3"]);
});

t.test("the new group's own backend pool and NAT pool in the load balancer; its pool in a gateway", async (t) => {
  const lbId = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb`;
  const lb = {
    id: lbId,
    properties: {
      frontendIPConfigurations: [{ name: "fe", id: `${lbId}/frontendIPConfigurations/fe` }],
      backendAddressPools: [{ name: "app-v000" }],
      inboundNatPools: [
        { name: "app-v000", properties: { frontendPortRangeStart: 50000, frontendPortRangeEnd: 50099 } },
      ],
    },
  };
  const added = withGroupPools(lb, lbId, "app-v001", false);
  t.same(added.added, { pools: ["app-v001"], natPools: ["app-v001"] }, "what it added, for the group's destroy");
  t.same(
    added.resource.properties!.backendAddressPools!.map((p) => p.name),
    ["app-v000", "app-v001"],
  );
  t.match(added.resource.properties!.inboundNatPools![1], {
    name: "app-v001",
    properties: {
      frontendPortRangeStart: 50100,
      frontendPortRangeEnd: 50199,
      backendPort: 22,
      frontendIPConfiguration: { id: `${lbId}/frontendIPConfigurations/fe` },
    },
  });
  t.same(
    withGroupPools(added.resource, lbId, "app-v001", false).added,
    { pools: [], natPools: [] },
    "there already: nothing added, no write",
  );
  t.equal(
    withGroupPools({ properties: {} }, lbId, "w-v000", true).resource.properties!.inboundNatPools!.length,
    0,
    "no frontend: no NAT pool",
  );
  t.same(
    withGroupGatewayPool({ properties: { backendAddressPools: [] } }, "app-v001").resource.properties!
      .backendAddressPools,
    [{ name: "app-v001", properties: { backendAddresses: [] } }],
  );
  t.same(balancerOf({ loadBalancerName: "agw", loadBalancerType: "Azure Application Gateway" }), {
    kind: "agw",
    name: "agw",
  });
  t.same(balancerOf({ loadBalancerName: "lb" }), { kind: "lb", name: "lb" });
  t.same(balancerOf({ appGatewayName: "g", loadBalancerName: "lb" }), { kind: "agw", name: "g" });
  t.equal(balancerOf({}), undefined);
});

t.test("an account's VM admin: inline key, key file, password variable; a misconfiguration is named", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-vmadmin-"));
  writeFileSync(join(dir, "key.pub"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFile ops@example\n");
  const accounts = [
    {
      name: "inline",
      subscriptionId: SUB,
      credential: "simulator",
      vmAdmin: { adminUsername: "ops", sshPublicKey: "ssh-ed25519 AAAAInline ops@example" },
    },
    { name: "file", subscriptionId: SUB, credential: "simulator", vmAdmin: { sshPublicKeyFile: join(dir, "key.pub") } },
    {
      name: "password",
      subscriptionId: SUB,
      credential: "simulator",
      vmAdmin: { adminUsername: "ops", passwordEnv: "VM_PW" },
      defaultResourceGroup: "ops-rg",
      serverGroupResourceGroup: "account",
    },
  ];
  const config = loadConfig({ SIMULATOR: "off", TRUSTED_NETWORK: "true", ACCOUNTS: JSON.stringify(accounts) });
  const [inline, file, password] = config.accounts;
  t.same(accountVmAdmin(inline), { adminUserName: "ops", sshPublicKeys: ["ssh-ed25519 AAAAInline ops@example"] });
  t.same(accountVmAdmin(file), {
    adminUserName: "azureuser",
    sshPublicKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFile ops@example"],
  });
  t.same(accountVmAdmin(password, { VM_PW: "pw" }), { adminUserName: "ops", sshPublicKeys: [], password: "pw" });
  t.throws(() => accountVmAdmin(password, {}), VmAdminUnavailable);
  t.throws(
    () => accountVmAdmin({ ...file, vmAdmin: { adminUsername: "a", sshPublicKeyFile: join(dir, "missing") } }),
    /cannot be read/,
  );
  t.throws(
    () =>
      loadConfig({
        SIMULATOR: "off",
        TRUSTED_NETWORK: "true",
        ACCOUNTS: JSON.stringify([{ ...accounts[0], vmAdmin: { sshPublicKey: "k", passwordEnv: "X" } }]),
      }),
    /exactly one of/,
  );
  t.throws(
    () =>
      loadConfig({
        SIMULATOR: "off",
        TRUSTED_NETWORK: "true",
        ACCOUNTS: JSON.stringify([{ ...accounts[0], serverGroupResourceGroup: "mine" }]),
      }),
    /serverGroupResourceGroup/,
  );
  // Where clusters live: {application}-{region}, unless the account keeps them in its own resource group.
  t.equal(resourceGroupOf(inline, "shop-web-v001", "eastus"), "shop-eastus");
  t.equal(
    resourceGroupOf({ defaultResourceGroup: "ops-rg" }, "shop-web-v001", "eastus"),
    "shop-eastus",
    "a default resource group alone is clouddriver-azure's rule",
  );
  t.equal(resourceGroupOf(password, "shop-web-v001", "eastus"), "ops-rg");
  t.equal(config.accounts.length, 3);
});

t.test("a merged resize goes to desired with min lowered", async (t) => {
  t.same(mergedCapacity({ min: 2, max: 2, desired: 1 }), { min: 1, max: 2, desired: 1 });
  t.same(mergedCapacity({ min: 1, max: 5, desired: 3 }), { min: 1, max: 5, desired: 3 });
});

t.test("in a pool, the load balancer's probe decides the LoadBalancer health Orca reads", async (t) => {
  const vm = (code?: string) => ({
    location: "eastus",
    provisioningState: "Succeeded",
    instanceView: { statuses: [{ code: "PowerState/running" }], ...(code ? { vmHealth: { status: { code } } } : {}) },
  });
  const lb = (code?: string) => instanceHealth(vm(code), true).health.find((h) => h.type === "LoadBalancer")!.state;
  t.equal(lb("HealthState/healthy"), "Up");
  t.equal(lb(undefined), "Up", "nothing reports it: in a pool is all Azure can tell");
  t.equal(lb("HealthState/initializing"), "Starting", "WaitForUpInstances waits for it");
  t.equal(lb("HealthState/unhealthy"), "Down");
  t.equal(instanceHealth(vm("HealthState/healthy"), false).healthState, "OutOfService", "out of its pools");
});
