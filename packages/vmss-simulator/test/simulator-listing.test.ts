// Every resource type the simulator holds can be listed where Azure lists it — in its resource group and in the
// subscription — and every list is paged as ARM pages (`nextLink` with a `$skiptoken`, src/paging.ts): Microsoft's
// @azure/arm-compute follows the scale sets' pages itself; the other lists are followed by hand, page by page.
import t from "tap";
import { SimulatorControl, startSimulator, type RawResponse } from "../src/index.ts";
import { computeClient } from "./helpers/compute-client.ts";

const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 0, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());

const SUB = `/subscriptions/${sim.subscriptionId}`;
const RG = `${SUB}/resourceGroups/demo-rg`;
const AUTH = { authorization: "Bearer test" };

interface Page {
  value: { id: string; name?: string }[];
  nextLink?: string;
}

function get(path: string, apiVersion: string): Promise<RawResponse> {
  const sep = path.includes("?") ? "&" : "?";
  return control.request("GET", `${path}${sep}api-version=${apiVersion}`, { headers: AUTH });
}

/** Every item of a list, following nextLink; each page at most `pageSize` items, and the pages it took. */
async function listAll(path: string, apiVersion: string, pageSize: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let res = await get(path, apiVersion);
  let pages = 0;
  for (;;) {
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    const page = res.body as Page;
    pages++;
    if (page.value.length > pageSize) throw new Error(`${path}: a page of ${page.value.length} > ${pageSize}`);
    ids.push(...page.value.map((v) => v.id));
    if (!page.nextLink) return { ids, pages };
    const next = new URL(page.nextLink);
    if (next.origin !== sim.url) throw new Error(`nextLink ${page.nextLink} is not the simulator's`);
    res = await control.request("GET", `${next.pathname}${next.search}`, { headers: AUTH });
  }
}

t.before(async () => {
  // A few more resources of the kinds that are not seeded: deployments and locks.
  const template = {
    $schema: "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
    contentVersion: "1.0.0.0",
    resources: [
      {
        type: "Microsoft.Network/networkSecurityGroups",
        name: "[parameters('name')]",
        location: "eastus",
        apiVersion: "2022-07-01",
        properties: { securityRules: [] },
      },
    ],
    parameters: { name: { type: "string" } },
  };
  for (const name of ["dep-a", "dep-b", "dep-c"]) {
    const res = await control.request(
      "PUT",
      `${RG}/providers/Microsoft.Resources/deployments/${name}?api-version=2019-10-01`,
      {
        headers: AUTH,
        body: { properties: { mode: "Incremental", template, parameters: { name: { value: `${name}-nsg` } } } },
      },
    );
    if (res.status !== 201) throw new Error(`deployment ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  // Groups a scale set may name, and autoscale settings: two of each
  for (const [type, apiVersion, body] of [
    ["Microsoft.Compute/proximityPlacementGroups", "2024-11-01", { location: "eastus" }],
    ["Microsoft.Compute/capacityReservationGroups", "2024-11-01", { location: "eastus" }],
    [
      "Microsoft.Compute/images",
      "2024-11-01",
      { location: "eastus", properties: { storageProfile: { osDisk: { osType: "Linux", osState: "Generalized" } } } },
    ],
    [
      "Microsoft.Insights/autoscalesettings",
      "2022-10-01",
      {
        location: "eastus",
        properties: {
          enabled: false,
          targetResourceUri: `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v001`,
          profiles: [{ name: "d", capacity: { minimum: "1", maximum: "3", default: "2" }, rules: [] }],
        },
      },
    ],
  ] as const)
    for (const name of ["one", "two"]) {
      const res = await control.request("PUT", `${RG}/providers/${type}/${name}?api-version=${apiVersion}`, {
        headers: AUTH,
        body,
      });
      if (res.status !== 201) throw new Error(`${type} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  const lock = { properties: { level: "CanNotDelete" } };
  const LOCKS = "providers/Microsoft.Authorization/locks";
  for (const path of [
    `${RG}/${LOCKS}/group-lock`,
    `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v001/${LOCKS}/ss-lock`,
  ]) {
    const res = await control.request("PUT", `${path}?api-version=2020-05-01`, { headers: AUTH, body: lock });
    if (res.status !== 201) throw new Error(`lock ${path}: ${res.status}`);
  }
});

t.afterEach(() => control.setConfig({ listPageSize: 100 }));

/** Each list: its path and api-version, and the least it must hold. */
const LISTS: { what: string; path: string; apiVersion: string; holds: RegExp[] }[] = [
  {
    what: "scale sets in the group",
    path: `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`,
    apiVersion: "2026-04-01",
    holds: [/web-prod-v001$/, /web-prod-v002$/, /batch-v001$/],
  },
  {
    what: "scale sets in the subscription",
    path: `${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets`,
    apiVersion: "2026-04-01",
    holds: [/web-prod-v001$/, /web-prod-v002$/, /batch-v001$/],
  },
  {
    what: "resources of the group",
    path: `${RG}/resources`,
    apiVersion: "2021-04-01",
    holds: [
      /virtualMachineScaleSets\/web-prod-v001$/,
      /loadBalancers\/demo-lb$/,
      /userAssignedIdentities\/demo-identity$/,
      /dep-a-nsg$/,
      /proximityPlacementGroups\/one$/,
      /capacityReservationGroups\/two$/,
      /images\/one$/,
      /autoscalesettings\/one$/,
    ],
  },
  {
    what: "resources of the subscription",
    path: `${SUB}/resources`,
    apiVersion: "2021-04-01",
    holds: [
      /virtualMachineScaleSets\/web-prod-v001$/,
      /virtualNetworks\/demo-rg-vnet$/,
      /userAssignedIdentities\/demo-identity$/,
    ],
  },
  {
    what: "deployments of the group",
    path: `${RG}/providers/Microsoft.Resources/deployments`,
    apiVersion: "2019-10-01",
    holds: [/deployments\/dep-a$/, /deployments\/dep-b$/, /deployments\/dep-c$/],
  },
  {
    what: "locks of the group",
    path: `${RG}/providers/Microsoft.Authorization/locks`,
    apiVersion: "2020-05-01",
    holds: [/locks\/group-lock$/, /web-prod-v001\/providers\/Microsoft.Authorization\/locks\/ss-lock$/],
  },
  {
    what: "locks of the subscription",
    path: `${SUB}/providers/Microsoft.Authorization/locks`,
    apiVersion: "2020-05-01",
    holds: [/locks\/group-lock$/, /locks\/ss-lock$/],
  },
  {
    what: "identities of the subscription",
    path: `${SUB}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`,
    apiVersion: "2023-01-31",
    holds: [/demo-identity$/],
  },
  {
    what: "network security groups of the subscription",
    path: `${SUB}/providers/Microsoft.Network/networkSecurityGroups`,
    apiVersion: "2024-05-01",
    holds: [/demo-nsg$/, /dep-a-nsg$/, /dep-b-nsg$/, /dep-c-nsg$/],
  },
  {
    what: "load balancers of the subscription",
    path: `${SUB}/providers/Microsoft.Network/loadBalancers`,
    apiVersion: "2024-05-01",
    holds: [/demo-lb$/],
  },
  {
    what: "identities of the group",
    path: `${RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`,
    apiVersion: "2023-01-31",
    holds: [/demo-identity$/],
  },
  {
    what: "network security groups of the group",
    path: `${RG}/providers/Microsoft.Network/networkSecurityGroups`,
    apiVersion: "2024-05-01",
    holds: [/demo-nsg$/, /dep-a-nsg$/],
  },
  ...(["proximityPlacementGroups", "capacityReservationGroups", "images"] as const).flatMap((type) => [
    {
      what: `${type} of the group`,
      path: `${RG}/providers/Microsoft.Compute/${type}`,
      apiVersion: "2024-11-01",
      holds: [new RegExp(`${type}/one$`), new RegExp(`${type}/two$`)],
    },
    {
      what: `${type} of the subscription`,
      path: `${SUB}/providers/Microsoft.Compute/${type}`,
      apiVersion: "2024-11-01",
      holds: [new RegExp(`${type}/one$`), new RegExp(`${type}/two$`)],
    },
  ]),
  {
    what: "autoscale settings of the group",
    path: `${RG}/providers/Microsoft.Insights/autoscalesettings`,
    apiVersion: "2022-10-01",
    holds: [/autoscalesettings\/one$/, /autoscalesettings\/two$/],
  },
  {
    what: "autoscale settings of the subscription",
    path: `${SUB}/providers/Microsoft.Insights/autoscalesettings`,
    apiVersion: "2022-10-01",
    holds: [/autoscalesettings\/one$/, /autoscalesettings\/two$/],
  },
  {
    what: "resource groups of the subscription",
    path: `${SUB}/resourceGroups`,
    apiVersion: "2021-04-01",
    holds: [/resourceGroups\/demo-rg$/],
  },
  {
    what: "secrets of a vault",
    path: "/keyvaults/demo-kv/secrets",
    apiVersion: "7.4",
    holds: [/secrets\/vmsshpublickey$/, /secrets\/vmusername$/],
  },
];

t.test("every list answers, in one page by default, with what it must hold", async (t) => {
  for (const list of LISTS) {
    const res = await get(list.path, list.apiVersion);
    t.equal(res.status, 200, `${list.what}: 200`);
    const page = res.body as Page;
    t.notOk(page.nextLink, `${list.what}: one page`);
    for (const re of list.holds)
      t.ok(
        page.value.some((v) => re.test(v.id)),
        `${list.what} hold ${re}`,
      );
  }
});

t.test("every list is paged with nextLink: the pages together are the whole list, once each", async (t) => {
  const whole = new Map<string, string[]>();
  for (const list of LISTS) whole.set(list.what, (await listAll(list.path, list.apiVersion, 100)).ids);
  await control.setConfig({ listPageSize: 2 });
  for (const list of LISTS) {
    const { ids, pages } = await listAll(list.path, list.apiVersion, 2);
    const expected = whole.get(list.what)!;
    t.same(ids, expected, `${list.what}: the same items, in the same order`);
    t.equal(pages, Math.max(1, Math.ceil(expected.length / 2)), `${list.what}: ${pages} page(s)`);
  }
});

t.test("@azure/arm-compute follows the scale sets' pages itself", async (t) => {
  await control.setConfig({ listPageSize: 1 });
  const client = computeClient(sim);
  const inGroup: string[] = [];
  for await (const ss of client.virtualMachineScaleSets.list("demo-rg")) inGroup.push(ss.name!);
  t.same(inGroup.sort(), ["batch-v001", "web-prod-v001", "web-prod-v002"]);
  const all: string[] = [];
  for await (const ss of client.virtualMachineScaleSets.listAll()) all.push(ss.name!);
  t.same(all.sort(), ["batch-v001", "web-prod-v001", "web-prod-v002"]);
  const pages: number[] = [];
  for await (const page of client.virtualMachineScaleSets.list("demo-rg").byPage()) pages.push(page.length);
  t.same(pages, [1, 1, 1], "one scale set a page");
});

t.test("deployments at the subscription's scope: none (the simulator deploys into resource groups only)", async (t) => {
  const res = await get(`${SUB}/providers/Microsoft.Resources/deployments`, "2019-10-01");
  t.match(res, { status: 200, body: { value: [] } }, "an empty list, not 501");
  t.equal((res.body as Page).value.length, 0);
});

t.test("a $skiptoken that is not one of the simulator's is Azure's 400", async (t) => {
  const res = await get(`${RG}/resources?$skiptoken=zz`, "2021-04-01");
  t.match(res, { status: 400, body: { error: { code: "InvalidParameter", target: "$skiptoken" } } });
});

t.test("a list in a resource group that does not exist is 404 ResourceGroupNotFound", async (t) => {
  for (const path of [
    `${SUB}/resourceGroups/no-such-rg/providers/Microsoft.Resources/deployments`,
    `${SUB}/resourceGroups/no-such-rg/resources`,
  ]) {
    const res = await get(path, "2021-04-01");
    t.match(res, { status: 404, body: { error: { code: "ResourceGroupNotFound" } } }, path);
  }
});

t.test("a managed image: PUT 201 then 200, GET, in its group's list, DELETE 200 then 204, GET 404", async (t) => {
  const image = `${RG}/providers/Microsoft.Compute/images/crud-image`;
  const at = (method: string, body?: unknown) =>
    control.request(method, `${image}?api-version=2024-11-01`, { headers: AUTH, ...(body ? { body } : {}) });
  t.match(
    await at("PUT", {}),
    { status: 400, body: { error: { code: "LocationRequired" } } },
    "a location is required",
  );
  const storageProfile = { osDisk: { osType: "Linux", osState: "Generalized" } };
  const made = await at("PUT", { location: "East US", properties: { storageProfile } });
  t.match(made, {
    status: 201,
    body: {
      id: image,
      name: "crud-image",
      type: "Microsoft.Compute/images",
      location: "eastus",
      properties: { storageProfile, provisioningState: "Succeeded", hyperVGeneration: "V1" },
    },
  });
  t.match(await at("PUT", { location: "eastus", tags: { team: "a" }, properties: { storageProfile } }), {
    status: 200,
    body: { tags: { team: "a" } },
  });
  t.match(await at("GET"), { status: 200, body: { id: image, tags: { team: "a" } } });
  const listed = await get(`${RG}/providers/Microsoft.Compute/images`, "2024-11-01");
  t.ok(
    (listed.body as Page).value.some((v) => v.id === image),
    "listed in its group",
  );
  t.equal((await at("DELETE")).status, 200);
  t.equal((await at("DELETE")).status, 204, "already gone");
  t.match(await at("GET"), { status: 404, body: { error: { code: "ResourceNotFound" } } });
});
