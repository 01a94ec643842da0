// ARM template deployments in the simulator (src/deployments.ts, template-expressions.ts): the expressions
// the Azure CLI's templates use are evaluated, anything else is refused by name before anything is deployed, and a
// deployment runs its resources in dependency order through the simulator's own routes, ending with its outputs.
import t from "tap";
import { SimulatorControl } from "../src/control-client.ts";
import { startSimulator } from "../src/simulator.ts";
import { checkFunctions, evaluateDeep, parseExpression, type EvalScope } from "../src/template-expressions.ts";
import { camelCase, parseLenientJson } from "../src/deployments.ts";
import { ArmError } from "../src/arm-errors.ts";
import type { Json } from "./helpers/json.ts";
import { waitFor } from "./helpers/wait-for.ts";

const scope: EvalScope = {
  subscriptionId: "sub",
  resourceGroup: "rg",
  location: "eastus",
  parameters: { adminPassword: "secret", names: ["a", "b"] },
  variables: { lbName: "web-lb" },
  reference: (id, apiVersion, full) => ({ id, apiVersion, full }),
  providers: (namespace, type) => ({ namespace, resourceType: type, apiVersions: ["2024-03-01", "2023-09-01"] }),
};

t.test("expressions the Azure CLI's templates use are evaluated", async (t) => {
  t.equal(evaluateDeep("[parameters('adminPassword')]", scope), "secret");
  t.equal(
    evaluateDeep(
      "[concat(resourceId('Microsoft.Network/loadBalancers', variables('lbName')), '/frontendIPConfigurations/', 'fe')]",
      scope,
    ),
    "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/web-lb/frontendIPConfigurations/fe",
  );
  t.equal(
    evaluateDeep("[resourceId('other-rg', 'Microsoft.Network/virtualNetworks/subnets', 'vnet', 'default')]", scope),
    "/subscriptions/sub/resourceGroups/other-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/default",
  );
  t.same(
    evaluateDeep(
      "[reference(resourceId('Microsoft.Compute/virtualMachineScaleSets', 'ss'),providers('Microsoft.Compute', 'virtualMachineScaleSets').apiVersions[0])]",
      scope,
    ),
    {
      id: "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss",
      apiVersion: "2024-03-01",
      full: false,
    },
  );
  t.equal(evaluateDeep("[parameters('names')[1]]", scope), "b");
  t.equal(evaluateDeep("[concat('it''s ', resourceGroup().location)]", scope), "it's eastus");
  t.equal(evaluateDeep("[[not an expression]", scope), "[not an expression]", "[[ is a literal [");
  t.same(evaluateDeep({ a: ["[variables('lbName')]", 1, null] }, scope), { a: ["web-lb", 1, null] });
});

t.test("what cannot be evaluated is refused by name", async (t) => {
  const refused = (f: () => unknown, pattern: RegExp, what: string) => {
    try {
      f();
      t.fail(`${what}: not refused`);
    } catch (err) {
      t.ok(err instanceof ArmError, what);
      t.match((err as ArmError).toBody(), { error: { code: "InvalidTemplate", message: pattern } }, what);
    }
  };
  refused(
    () => checkFunctions({ name: "[uniqueString(resourceGroup().id)]" }),
    /template function 'uniqueString' is not supported/,
    "an unknown function",
  );
  refused(() => parseExpression("[concat('a', ]"), /is not valid/, "a syntax error");
  refused(
    () => evaluateDeep("[parameters('missing')]", scope),
    /parameter 'missing' is not found/,
    "an undeclared parameter",
  );
  refused(
    () => evaluateDeep("[resourceId('Microsoft.Network/virtualNetworks/subnets', 'vnet')]", scope),
    /requires 2 resource name/,
    "resourceId with a name missing",
  );
  t.equal(camelCase("VMSS"), "vmss", "output names as ARM returns them");
  t.equal(camelCase("StorageAccountName"), "storageAccountName");
  t.equal(camelCase("URLValue"), "urlValue");
});

t.test("a deployment body is read as ARM reads it: JSONC as az deployment group create splices it", async (t) => {
  t.same(
    parseLenientJson(
      '{"properties": {"parameters": {}, "mode": "Incremental", template:{\n  // why\n  "a": "x: //y", /* z */ "b": [1, true]}}}',
    ),
    { properties: { parameters: {}, mode: "Incremental", template: { a: "x: //y", b: [1, true] } } },
  );
  t.throws(() => parseLenientJson("{nope"), { code: "InvalidRequestContent" });
});

const SUB = "00000000-0000-4000-8000-000000000001";

function template(extra: Json[] = []): Json {
  return {
    $schema: "https://schema.management.azure.com/schemas/2015-01-01/deploymentTemplate.json#",
    contentVersion: "1.0.0.0",
    parameters: { adminPassword: { type: "securestring" }, capacity: { type: "int", defaultValue: 2 } },
    variables: { lb: "dep-lb" },
    resources: [
      // written after the scale set that depends on it: order comes from dependsOn, not the list
      {
        type: "Microsoft.Compute/virtualMachineScaleSets",
        name: "dep-ss",
        location: "eastus",
        apiVersion: "2022-08-01",
        dependsOn: [
          "[resourceId('Microsoft.Network/loadBalancers', variables('lb'))]",
          "Microsoft.Network/virtualNetworks/dep-vnet",
        ],
        sku: { name: "Standard_D2s_v3", capacity: "[parameters('capacity')]" },
        properties: {
          upgradePolicy: { mode: "Manual" },
          virtualMachineProfile: {
            storageProfile: {
              imageReference: {
                publisher: "Canonical",
                offer: "0001-com-ubuntu-server-jammy",
                sku: "22_04-lts-gen2",
                version: "latest",
              },
            },
            osProfile: {
              computerNamePrefix: "dep",
              adminUsername: "azureuser",
              adminPassword: "[parameters('adminPassword')]",
            },
            networkProfile: {
              networkInterfaceConfigurations: [
                {
                  name: "nic",
                  properties: {
                    primary: true,
                    ipConfigurations: [
                      {
                        name: "ipc",
                        properties: {
                          subnet: {
                            id: "[concat(resourceId('Microsoft.Network/virtualNetworks', 'dep-vnet'), '/subnets/default')]",
                          },
                          loadBalancerBackendAddressPools: [
                            {
                              id: "[concat(resourceId('Microsoft.Network/loadBalancers', variables('lb')), '/backendAddressPools/pool')]",
                            },
                          ],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        },
      },
      {
        type: "Microsoft.Network/loadBalancers",
        name: "[variables('lb')]",
        location: "eastus",
        apiVersion: "2018-11-01",
        dependsOn: ["Microsoft.Network/publicIPAddresses/dep-ip"],
        properties: {
          frontendIPConfigurations: [
            {
              name: "fe",
              properties: { publicIPAddress: { id: "[resourceId('Microsoft.Network/publicIPAddresses', 'dep-ip')]" } },
            },
          ],
          backendAddressPools: [{ name: "pool" }],
        },
      },
      {
        type: "Microsoft.Network/publicIPAddresses",
        name: "dep-ip",
        location: "eastus",
        apiVersion: "2018-11-01",
        properties: { publicIPAllocationMethod: "Static" },
      },
      {
        type: "Microsoft.Network/virtualNetworks",
        name: "dep-vnet",
        location: "eastus",
        apiVersion: "2018-11-01",
        properties: {
          addressSpace: { addressPrefixes: ["10.1.0.0/16"] },
          subnets: [{ name: "default", properties: { addressPrefix: "10.1.0.0/24" } }],
        },
      },
      ...extra,
    ],
    outputs: {
      VMSS: {
        type: "object",
        value:
          "[reference(resourceId('Microsoft.Compute/virtualMachineScaleSets', 'dep-ss'),providers('Microsoft.Compute', 'virtualMachineScaleSets').apiVersions[0])]",
      },
    },
  };
}

t.test("a deployment runs its resources in dependency order and ends with its outputs", async (t) => {
  const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 50, throttling: false });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  const auth = { authorization: "Bearer test" };
  const DEP = `/subscriptions/${SUB}/resourceGroups/demo-rg/providers/Microsoft.Resources/deployments`;
  const NET = `/subscriptions/${SUB}/resourceGroups/demo-rg/providers/Microsoft.Network`;
  const VMSS = `/subscriptions/${SUB}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets`;
  const v = "?api-version=2019-10-01";

  const badVersion = await control.request("GET", `${DEP}/none?api-version=2013-01-01`, { headers: auth });
  t.match(badVersion, {
    status: 400,
    body: { error: { code: "NoRegisteredProviderFound", message: /type 'deployments'/ } },
  });

  // refused by name, and nothing deployed
  const storage = {
    type: "Microsoft.Storage/storageAccounts",
    name: "depstore",
    location: "eastus",
    apiVersion: "2022-09-01",
    properties: {},
  };
  const refused = await control.request("PUT", `${DEP}/refused${v}`, {
    headers: auth,
    body: {
      properties: { mode: "Incremental", template: template([storage]), parameters: { adminPassword: { value: "x" } } },
    },
  });
  t.equal(refused.status, 400);
  t.match(refused.body, {
    error: {
      code: "InvalidTemplateDeployment",
      message: /'depstore' of type 'Microsoft.Storage\/storageAccounts' cannot be deployed/,
    },
  });
  t.equal(
    (await control.request("GET", `${NET}/virtualNetworks/dep-vnet?api-version=2018-11-01`, { headers: auth })).status,
    404,
    "nothing deployed",
  );
  const unknownFn = await control.request("POST", `${DEP}/fn/validate${v}`, {
    headers: auth,
    body: {
      properties: {
        mode: "Incremental",
        template: { ...template(), variables: { lb: "[uniqueString('x')]" } },
        parameters: { adminPassword: { value: "x" } },
      },
    },
  });
  t.match(unknownFn, {
    status: 400,
    body: { error: { code: "InvalidTemplate", message: /'uniqueString' is not supported/ } },
  });
  const noParameter = await control.request("PUT", `${DEP}/noparam${v}`, {
    headers: auth,
    body: { properties: { mode: "Incremental", template: template(), parameters: {} } },
  });
  t.match(noParameter, {
    status: 400,
    body: { error: { code: "InvalidTemplate", message: /'adminPassword'.*not provided/ } },
  });

  const validated = await control.request("POST", `${DEP}/dep/validate${v}`, {
    headers: auth,
    body: { properties: { mode: "Incremental", template: template(), parameters: { adminPassword: { value: "x" } } } },
  });
  t.match(validated, { status: 200, body: { properties: { provisioningState: "Succeeded" } } });
  t.equal(
    (await control.request("GET", `${VMSS}/dep-ss?api-version=2024-03-01`, { headers: auth })).status,
    404,
    "validate deploys nothing",
  );

  const put = await control.request("PUT", `${DEP}/dep${v}`, {
    headers: auth,
    body: { properties: { mode: "Incremental", template: template(), parameters: { adminPassword: { value: "x" } } } },
  });
  t.equal(put.status, 201);
  t.match(put.body, {
    name: "dep",
    properties: { provisioningState: "Accepted", parameters: { adminPassword: { type: "SecureString" } } },
  });
  t.notMatch(JSON.stringify(put.body), /"x"/, "the secure parameter is not shown");
  const status = new URL(String(put.headers["azure-asyncoperation"]));
  t.match(status.pathname, /\/deployments\/dep\/operationStatuses\//);
  const done = await waitFor(
    async () => {
      const res = await control.request("GET", `${status.pathname}${status.search}`, { headers: auth });
      const s = (res.body as Json).status as string;
      return s === "Running" ? undefined : res.body;
    },
    { what: "the deployment to end" },
  );
  t.same(done, { status: "Succeeded" });

  const deployment = (await control.request("GET", `${DEP}/dep${v}`, { headers: auth })).body as Json;
  t.match(deployment.properties, {
    provisioningState: "Succeeded",
    outputs: { vmss: { type: "Object", value: { provisioningState: "Succeeded", orchestrationMode: "Uniform" } } },
  });
  t.equal(deployment.properties.outputResources.length, 4);
  const ss = (await control.request("GET", `${VMSS}/dep-ss?api-version=2024-03-01`, { headers: auth })).body as Json;
  t.match(ss, {
    sku: { capacity: 2 },
    properties: { virtualMachineProfile: { osProfile: { adminUsername: "azureuser" } } },
  });
  t.equal(
    (await control.request("GET", `${NET}/publicIPAddresses/dep-ip?api-version=2018-11-01`, { headers: auth })).status,
    200,
  );

  const ops = ((await control.request("GET", `${DEP}/dep/operations${v}`, { headers: auth })).body as Json)
    .value as Json[];
  t.same(ops.map((o) => o.properties.targetResource.resourceName).sort(), ["dep-ip", "dep-lb", "dep-ss", "dep-vnet"]);
  t.ok(ops.every((o) => o.properties.provisioningState === "Succeeded"));
  const started = (name: string) =>
    Date.parse(ops.find((o) => o.properties.targetResource.resourceName === name).properties.timestamp);
  t.ok(
    started("dep-ss") >= started("dep-lb") && started("dep-lb") >= started("dep-ip"),
    "the scale set after its load balancer, that after its IP",
  );
});

t.test("a resource that fails fails the deployment, with its error", async (t) => {
  const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 50, throttling: false });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  const auth = { authorization: "Bearer test" };
  const DEP = `/subscriptions/${SUB}/resourceGroups/demo-rg/providers/Microsoft.Resources/deployments`;
  const tpl = template();
  delete tpl.resources[0].sku; // a scale set create without a sku: Compute's 400
  const put = await control.request("PUT", `${DEP}/bad?api-version=2019-10-01`, {
    headers: auth,
    body: { properties: { mode: "Incremental", template: tpl, parameters: { adminPassword: { value: "x" } } } },
  });
  t.equal(put.status, 201);
  const status = new URL(String(put.headers["azure-asyncoperation"]));
  const done = await waitFor(
    async () => {
      const res = await control.request("GET", `${status.pathname}${status.search}`, { headers: auth });
      return (res.body as Json).status === "Running" ? undefined : res.body;
    },
    { what: "the deployment to end" },
  );
  t.match(done, {
    status: "Failed",
    error: { code: "DeploymentFailed", details: [{ code: "InvalidParameter", message: /sku/ }] },
  });
  const ops = (
    (await control.request("GET", `${DEP}/bad/operations?api-version=2019-10-01`, { headers: auth })).body as Json
  ).value as Json[];
  t.match(
    ops.find((o) => o.properties.targetResource.resourceName === "dep-ss"),
    {
      properties: {
        provisioningState: "Failed",
        statusCode: "400",
        statusMessage: { error: { code: "InvalidParameter" } },
      },
    },
  );
});

t.test("the image catalogue answers as Compute's VirtualMachineImages API", async (t) => {
  const sim = await startSimulator({ throttling: false });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  const auth = { authorization: "Bearer test" };
  const base = `/subscriptions/${SUB}/providers/Microsoft.Compute/locations/westeurope/publishers`;
  const versions = await control.request(
    "GET",
    `${base}/Canonical/artifacttypes/vmimage/offers/0001-com-ubuntu-server-jammy/skus/22_04-lts-gen2/versions?$top=1&$orderby=name%20desc&api-version=2022-08-01`,
    { headers: auth },
  );
  t.match(versions, { status: 200, body: [{ name: "22.04.202404080", location: "westeurope" }] });
  t.equal((versions.body as Json[]).length, 1);
  const image = await control.request(
    "GET",
    `${base}/MicrosoftWindowsServer/artifacttypes/vmimage/offers/WindowsServer/skus/2019-Datacenter/versions/17763.5696.240406?api-version=2022-08-01`,
    { headers: auth },
  );
  t.match(image.body, { properties: { osDiskImage: { operatingSystem: "Windows" }, hyperVGeneration: "V1" } });
  const unknown = await control.request(
    "GET",
    `${base}/Canonical/artifacttypes/vmimage/offers/UbuntuServer/skus/12.04-LTS/versions?api-version=2022-08-01`,
    { headers: auth },
  );
  t.match(unknown, { status: 404, body: { error: { code: "NotFound" } } });
  const aliases = await control.request("GET", "/arm-compute/quickstart-templates/aliases.json");
  t.match(aliases.body, {
    outputs: {
      aliases: {
        value: { Linux: { Ubuntu2204: { offer: "0001-com-ubuntu-server-jammy" } }, Windows: { Win2022Datacenter: {} } },
      },
    },
  });
});
