// A clone copies the whole scale set: a source carrying every setting a pipeline's scale set may have (identities,
// automatic repairs, scale-in policy, Spot, a rolling upgrade policy, zones, proximity placement, extensions, tags,
// and properties this service never sets itself) is written to the simulator as Azure takes it, cloned through the
// API as Orca's clone stage sends it (CloneServerGroupTask.groovy l.100: `cloneServerGroup` with `source`), and the
// two scale sets Azure then holds are compared field by field. They differ only where they must: the name and what
// Azure sets, the size tags we record, the computer name prefix, the NIC's name, and the system-assigned principal.
import type { Json } from "../testkit/json.ts";
import t, { type Test } from "tap";
import { SimulatorControl } from "vmss-simulator";
import { cloneLimits } from "../src/operations/create/scale-set-model.ts";
import { startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());
const arm = new SimulatorControl(env.sim);
const sub = env.sim.subscriptionId;
const RG = `/subscriptions/${sub}/resourceGroups/demo-rg`;
const VMSS = `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const IDENTITY = `${RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/demo-identity`;
const POOL = `${RG}/providers/Microsoft.Network/loadBalancers/web-prod-v001-lb/backendAddressPools/web-prod-v001-pool`;
const SUBNET = `${RG}/providers/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default`;
const PPG = `${RG}/providers/Microsoft.Compute/proximityPlacementGroups/shop-ppg`;

async function armPut(path: string, body: unknown): Promise<Json> {
  const res = await arm.request("PUT", `${path}?api-version=2026-04-01`, {
    headers: { authorization: "Bearer test" },
    body,
  });
  if (res.status >= 300) throw new Error(`PUT ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const held = async (name: string) => (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body;

/** A scale set with every setting, as one PUT gives it to Azure. */
function fullySet(name: string, flexible: boolean) {
  const nic = {
    name: `${name}-nic`,
    properties: {
      primary: true,
      enableAcceleratedNetworking: true,
      enableIPForwarding: true,
      dnsSettings: { dnsServers: ["10.0.0.4"] },
      ...(flexible ? { deleteOption: "Delete" } : {}),
      ipConfigurations: [
        {
          name: `${name}-ipconfig`,
          properties: { primary: true, subnet: { id: SUBNET }, loadBalancerBackendAddressPools: [{ id: POOL }] },
        },
      ],
    },
  };
  return {
    location: "eastus",
    tags: { app: "shop", owner: "team-a" },
    sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 2 },
    zones: ["1", "2"],
    identity: { type: "SystemAssigned, UserAssigned", userAssignedIdentities: { [IDENTITY]: {} } },
    properties: {
      orchestrationMode: flexible ? "Flexible" : "Uniform",
      ...(flexible ? { platformFaultDomainCount: 1 } : { overprovision: false, singlePlacementGroup: false }),
      upgradePolicy: {
        mode: "Rolling",
        rollingUpgradePolicy: {
          maxBatchInstancePercent: 50,
          maxUnhealthyInstancePercent: 50,
          maxUnhealthyUpgradedInstancePercent: 20,
          pauseTimeBetweenBatches: "PT5S",
        },
      },
      automaticRepairsPolicy: { enabled: true, gracePeriod: "PT15M", repairAction: "Restart" },
      scaleInPolicy: { rules: ["OldestVM"], forceDeletion: false },
      proximityPlacementGroup: { id: PPG },
      additionalCapabilities: { ultraSSDEnabled: false },
      zoneBalance: true,
      doNotRunExtensionsOnOverprovisionedVMs: true,
      virtualMachineProfile: {
        priority: "Spot",
        evictionPolicy: "Delete",
        billingProfile: { maxPrice: 0.05 },
        scheduledEventsProfile: { terminateNotificationProfile: { enable: true, notBeforeTimeout: "PT5M" } },
        osProfile: {
          computerNamePrefix: "shop",
          adminUsername: "azureuser",
          linuxConfiguration: {
            disablePasswordAuthentication: true,
            ssh: {
              publicKeys: [{ path: "/home/azureuser/.ssh/authorized_keys", keyData: "ssh-ed25519 AAAAC3Nza test@x" }],
            },
          },
        },
        storageProfile: {
          imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
          osDisk: {
            createOption: "FromImage",
            caching: "ReadWrite",
            managedDisk: { storageAccountType: "Premium_LRS" },
          },
          dataDisks: [
            { lun: 0, diskSizeGB: 64, createOption: "Empty", managedDisk: { storageAccountType: "Premium_LRS" } },
          ],
        },
        networkProfile: {
          ...(flexible ? { networkApiVersion: "2020-11-01" } : {}),
          networkInterfaceConfigurations: [nic],
        },
        extensionProfile: {
          extensions: [
            {
              name: "HealthExtension",
              properties: {
                publisher: "Microsoft.ManagedServices",
                type: "ApplicationHealthLinux",
                typeHandlerVersion: "1.0",
                autoUpgradeMinorVersion: true,
                settings: { protocol: "http", port: 80, requestPath: "/health" },
              },
            },
          ],
        },
      },
    },
  };
}

/** Every path (a.b[0].c) at which two JSON values differ. */
function differences(a: unknown, b: unknown, at = ""): string[] {
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      differences((a as Json)[k], (b as Json)[k], Array.isArray(a) ? `${at}[${k}]` : at ? `${at}.${k}` : k),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [at];
}

async function cloneOf(t: Test, source: string, flexible: boolean) {
  // The placement group the model names must exist first, as on Azure.
  await armPut(PPG, { location: "eastus" });
  await armPut(`${VMSS}/${source}`, fullySet(source, flexible));
  await waitFor(async () => (await held(source)).vmss.properties.provisioningState === "Succeeded", {
    what: `${source} created`,
  });
  const res = await env.api("POST", "/azure/ops/cloneServerGroup", {
    credentials: "demo",
    region: "eastus",
    source: { account: "demo", region: "eastus", serverGroupName: source },
  });
  t.equal(res.status, 202, JSON.stringify(res.body));
  const task = await env.waitForTask(res.body.id, 60_000);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  const name = task.resultObjects[0].serverGroupName as string;
  return { task, source: (await held(source)).vmss, copy: (await held(name)).vmss, name };
}

for (const flexible of [false, true]) {
  const kind = flexible ? "Flexible" : "Uniform";
  t.test(`a clone of a ${kind} scale set carrying every setting equals its source, field by field`, async (t) => {
    const sourceName = flexible ? "flexshop-prod-v000" : "shop-prod-v000";
    const { task, source, copy, name } = await cloneOf(t, sourceName, flexible);
    t.equal(name, sourceName.replace("v000", "v001"));
    const nicPath = "properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0]";
    // The ETag and the creation time are Azure's: they may happen to be the same.
    const azures = ["etag", "properties.timeCreated"].filter((p) => differences(source, copy).includes(p));
    const mustDiffer = [
      ...azures,
      "name",
      "id",
      "properties.uniqueId",
      "identity.principalId",
      "properties.virtualMachineProfile.osProfile.computerNamePrefix",
      `${nicPath}.name`,
      `${nicPath}.properties.ipConfigurations[0].name`,
    ];
    const tagsAdded = Object.keys(copy.tags)
      .filter((k) => !(k in source.tags))
      .map((k) => `tags.${k}`);
    t.ok(
      tagsAdded.every((k) => k.startsWith("tags.vmss-ops.")),
      `only our own records added to the tags: ${tagsAdded.join(", ")}`,
    );
    t.same(
      differences(source, copy).sort(),
      [...mustDiffer, ...tagsAdded].sort(),
      "the copy differs from its source only where it must",
    );
    t.not(copy.identity.principalId, source.identity.principalId, "a system-assigned principal is the scale set's own");
    t.same(copy.identity.userAssignedIdentities, source.identity.userAssignedIdentities, "the same user identity");
    t.match(
      task.history.map((h: Json) => h.status).join("\n"),
      /system-assigned identity \(principal [0-9a-f-]{36}\) is its own: Azure gives the copy a new principal/,
      "what cannot be copied is said in the history",
    );
  });
}

/** An extension whose protectedSettings Azure never returns on a GET. */
function secretScriptExtension(): Json {
  return {
    name: "CustomScript",
    properties: {
      publisher: "Microsoft.Azure.Extensions",
      type: "CustomScript",
      typeHandlerVersion: "2.1",
      settings: { fileUris: [] },
      protectedSettings: { commandToExecute: "echo secret" },
    },
  };
}

t.test("what Azure does not let a clone take is refused before writing, or said in the history", async (t) => {
  const source = {
    location: "eastus",
    proximityPlacementGroup: { id: PPG },
    identity: { type: "SystemAssigned", principalId: "p-1" },
  } as const;
  const elsewhere = cloneLimits(source, { region: "westus" });
  t.match(elsewhere.refusals, [
    /proximity placement group .*shop-ppg, in eastus; a scale set in westus cannot join it/,
  ]);
  t.match(elsewhere.notes, [/system-assigned identity \(principal p-1\) is its own/]);
  t.match(elsewhere.notes, [/system-assigned identity/, /custom data \(osProfile\.customData\) is not copied/]);
  const same = cloneLimits(source, { region: "eastus", identity: { system: false }, osConfig: { customData: "" } });
  t.same(
    same,
    { refusals: [], notes: [] },
    "within its region, without the system identity, its custom data given (none): nothing to say",
  );
});

// Azure keeps and never returns a scale set's osProfile.customData and its extensions' protectedSettings, and
// returns userData only to a GET with $expand=userData (Microsoft Learn, custom data "is not available to be
// retrieved"; Azure/azure-cli#5866, #20870; Azure/azure-sdk-for-java#21779). The simulator answers so; a clone reads
// userData with $expand, takes customData from its body when given, and says what it could not copy.
t.test(
  "what Azure never returns on a read: a clone copies userData, and says customData and protectedSettings were not copied",
  async (t) => {
    const name = "secret-prod-v000";
    const body = fullySet(name, false) as Json;
    const profile = body.properties.virtualMachineProfile;
    profile.userData = Buffer.from("user data").toString("base64");
    profile.osProfile.customData = Buffer.from("#cloud-config").toString("base64");
    profile.extensionProfile.extensions.push(secretScriptExtension());
    await armPut(`${VMSS}/${name}`, body);
    await waitFor(async () => (await held(name)).vmss.properties.provisioningState === "Succeeded", {
      what: `${name} created`,
    });
    const get = async (query: string) =>
      (
        await arm.request("GET", `${VMSS}/${name}?api-version=2026-04-01${query}`, {
          headers: { authorization: "Bearer test" },
        })
      ).body as Json;
    const plain = (await get("")).properties.virtualMachineProfile;
    t.equal(plain.osProfile.customData, undefined, "Azure's GET: no customData");
    t.equal(plain.userData, undefined, "no userData without $expand");
    t.notOk(
      plain.extensionProfile.extensions.some((e: Json) => "protectedSettings" in e.properties),
      "no protectedSettings",
    );
    t.equal((await get("&$expand=userData")).properties.virtualMachineProfile.userData, profile.userData);

    const clone = async (extra: Record<string, unknown>) => {
      const res = await env.api("POST", "/azure/ops/cloneServerGroup", {
        credentials: "demo",
        region: "eastus",
        source: { account: "demo", region: "eastus", serverGroupName: name },
        ...extra,
      });
      t.equal(res.status, 202, JSON.stringify(res.body));
      const task = await env.waitForTask(res.body.id, 60_000);
      t.equal(task.status.failed, false, JSON.stringify(task.history));
      const copy = (await held(task.resultObjects[0].serverGroupName as string)).vmss.properties.virtualMachineProfile;
      return { history: task.history.map((h: Json) => h.status).join("\n"), copy, result: task.resultObjects[0] };
    };
    const first = await clone({});
    t.equal(first.copy.userData, profile.userData, "userData copied: read with $expand=userData");
    t.equal(first.copy.osProfile.customData, undefined, "customData: Azure did not return it, so not copied");
    t.match(first.history, /custom data \(osProfile\.customData\) is not copied: Azure never returns it on a read/);
    t.match(
      first.history,
      /protected settings of the source's extension\(s\) HealthExtension, CustomScript are not copied/,
      "said in the history, never silently",
    );
    t.same(
      first.result.notCopied,
      [
        "virtualMachineProfile.osProfile.customData",
        "virtualMachineProfile.extensionProfile.extensions[HealthExtension].protectedSettings",
        "virtualMachineProfile.extensionProfile.extensions[CustomScript].protectedSettings",
      ],
      "and in the task's answer, field by field",
    );
    const second = await clone({ osConfig: { customData: "#cloud-config again" } });
    t.equal(
      second.copy.osProfile.customData,
      Buffer.from("#cloud-config again").toString("base64"),
      "customData from the clone's body",
    );
    t.notMatch(second.history, /custom data/, "given: nothing to say about it");
    t.notOk(second.result.notCopied.includes("virtualMachineProfile.osProfile.customData"), "nor in the answer");
  },
);

// Under `Prefer: handling=strict` a clone that would lose what Azure never returns is refused at submission, before
// any write, naming each field and how to give it; the same clone giving them is accepted.
t.test(
  "strict handling: a clone that cannot copy customData or protectedSettings is a 400, before any write",
  async (t) => {
    const name = "strict-prod-v000";
    const body = fullySet(name, false) as Json;
    body.properties.virtualMachineProfile.extensionProfile.extensions.push(secretScriptExtension());
    await armPut(PPG, { location: "eastus" });
    await armPut(`${VMSS}/${name}`, body);
    await waitFor(async () => (await held(name)).vmss.properties.provisioningState === "Succeeded", {
      what: `${name} created`,
    });
    const strictly = async (extra: Record<string, unknown>) => {
      const res = await env.service.app.inject({
        method: "POST",
        url: "/azure/ops",
        headers: { "content-type": "application/json", prefer: "handling=strict" },
        // Orca's clone body (CloneServerGroupTask.groovy l.100; the source as SourceResolver.groovy l.122 names it).
        payload: JSON.stringify([
          {
            cloneServerGroup: {
              credentials: "demo",
              region: "eastus",
              cloudProvider: "azure",
              source: { account: "demo", region: "eastus", asgName: name },
              ...extra,
            },
          },
        ]),
      });
      return { status: res.statusCode, body: res.json<Json>() };
    };
    const refused = await strictly({});
    t.equal(refused.status, 400, JSON.stringify(refused.body));
    t.equal(refused.body.error, "ValidationError");
    const details = refused.body.details as { field: string; message: string }[];
    t.match(details, [
      {
        field: "[0].cloneServerGroup.osConfig.customData",
        message:
          /Azure never returns osProfile\.customData on a read \(refused under Prefer: handling=strict\); give osConfig\.customData \(""/,
      },
      {
        field: "[0].cloneServerGroup.source",
        message:
          /protected settings of strict-prod-v000's extension\(s\) HealthExtension, CustomScript cannot be copied.*give customScriptsSettings/,
      },
    ]);
    const listed = await arm.request("GET", `${VMSS}?api-version=2026-04-01`, {
      headers: { authorization: "Bearer test" },
    });
    t.notOk(
      (listed.body as Json).value.some((v: Json) => v.name === "strict-prod-v001"),
      "nothing was written: no scale set made",
    );
    const given = await strictly({
      osConfig: { customData: "" },
      customScriptsSettings: { commandToExecute: "echo again" },
      healthSettings: { protocol: "http", port: 80, requestPath: "/health" },
    });
    t.equal(given.status, 202, `everything given: accepted (${JSON.stringify(given.body)})`);
    const task = await env.waitForTask(given.body.id, 60_000);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    t.equal(task.resultObjects[0].notCopied, undefined, "nothing left out");
  },
);
