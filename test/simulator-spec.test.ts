// The simulator checked against Compute's REST specification (test/fixtures/arm-spec, vendored per api-version; see
// its README): every ARM route it serves is an operation of the specification or listed below as outside it, with
// the reason; the traffic of real clients (a scripted pass over every Compute route at each vendored api-version,
// Microsoft's Python SDK at 2022-08-01, the service's own tests through @azure/arm-compute) is checked request by
// request and answer by answer with 0 errors; and a wrong answer (an extra field, a wrong type) fails the check.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import t from "tap";
import { armRoutePatterns, observeExchanges, SimulatorControl, startSimulator, type ArmExchange } from "vmss-simulator";
import {
  checkExchange,
  findOperationForPattern,
  loadSpec,
  specFor,
  vendoredApiVersions,
  type ArmSpec,
} from "./helpers/arm-spec.ts";
import { demo, demoCreate, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** ARM routes the simulator serves that no vendored Compute specification describes, each with the reason. */
const OUTSIDE_COMPUTE_SPEC: Record<string, string> = {
  "GET /subscriptions/:subscriptionId/providers/Microsoft.Compute/locations/:location/operations/:operationId":
    "ARM's long-running operation status (Azure-AsyncOperation): not an operation of the Compute specification, its shape is ARM's (checked in test/simulator-fidelity.test.ts against recorded Azure answers)",
  "GET /subscriptions/:subscriptionId/providers/Microsoft.Compute/locations/:location/operationResults/:operationId":
    "ARM's long-running operation result (Location): as above",
};
/** Route prefixes of other resource providers: their specifications are not vendored (Microsoft.Resources, …). */
const OTHER_PROVIDERS: [RegExp, string][] = [
  [/^\/subscriptions(\/:subscriptionId)?$/, "Microsoft.Resources (subscriptions)"],
  [/^\/subscriptions\/:subscriptionId\/resourceGroups(\/:resourceGroup)?$/i, "Microsoft.Resources (resource groups)"],
  [
    /^\/subscriptions\/:subscriptionId(\/resourceGroups\/:resourceGroup)?\/resources$/i,
    "Microsoft.Resources (resources of a group or of the subscription)",
  ],
  [/^\/subscriptions\/:subscriptionId\/providers\/:namespace$/, "Microsoft.Resources (providers)"],
  [/\/providers\/Microsoft\.Resources\//i, "Microsoft.Resources (deployments)"],
  [/\/providers\/Microsoft\.Authorization\//, "Microsoft.Authorization (locks, permissions)"],
  [/\/providers\/Microsoft\.Network\//, "Microsoft.Network"],
  [/\/providers\/Microsoft\.ManagedIdentity\//, "Microsoft.ManagedIdentity"],
  [
    /\/providers\/Microsoft\.Compute\/proximityPlacementGroups/i,
    "Compute's proximity placement groups: not in the vendored scale-set specification",
  ],
  [/\/providers\/Microsoft\.Insights\//, "Microsoft.Insights (autoscale settings)"],
  [/^\/keyvaults\//, "Key Vault's data plane"],
];

const specs: ArmSpec[] = vendoredApiVersions().map(loadSpec);

t.test("every ARM route is an operation of the Compute specification, or named as outside it", async (t) => {
  t.ok(specs.length >= 2, `vendored: ${specs.map((s) => s.apiVersion).join(", ")}`);
  const unchecked: string[] = [];
  const routes = armRoutePatterns();
  for (const { method, pattern } of routes) {
    const key = `${method} ${pattern}`;
    if (OUTSIDE_COMPUTE_SPEC[key] || OTHER_PROVIDERS.some(([re]) => re.test(pattern))) continue;
    if (!specs.some((spec) => findOperationForPattern(spec, method, pattern))) unchecked.push(key);
  }
  t.same(unchecked, [], "a new route needs an operation in a vendored specification, or an entry with its reason");
  const served = new Set(routes.map((r) => `${r.method} ${r.pattern}`));
  t.same(
    Object.keys(OUTSIDE_COMPUTE_SPEC).filter((k) => !served.has(k)),
    [],
    "no entry for a route the simulator no longer serves",
  );
});

/** Records every ARM exchange while `body` runs. */
async function record(body: () => Promise<void>): Promise<ArmExchange[]> {
  const seen: ArmExchange[] = [];
  const stop = observeExchanges((e) => seen.push(e));
  try {
    await body();
  } finally {
    stop();
  }
  return seen;
}

/** The errors of the exchanges against the specification of their api-version (`as`: another vendored one). */
function check(exchanges: ArmExchange[], as?: string): string[] {
  const errors: string[] = [];
  for (const e of exchanges) {
    if (!isComputeOperation(e)) continue;
    const spec = as ? loadSpec(as) : specFor(e.apiVersion);
    if (!spec) errors.push(`${e.method} ${e.path}: api-version ${e.apiVersion} has no vendored specification`);
    else errors.push(...checkExchange(spec, e, as ? undefined : e.apiVersion));
  }
  return errors;
}

function isComputeOperation(e: ArmExchange): boolean {
  return (
    /\/providers\/Microsoft\.Compute\//i.test(e.path) &&
    !/\/providers\/Microsoft\.Authorization\//i.test(e.path) &&
    !/\/locations\/[^/]+\/(operations|operationResults)\//i.test(e.path)
  );
}

const RG = "/resourceGroups/demo-rg/providers/Microsoft.Compute";

/** Every Compute route of the simulator, once, at one api-version: reads, writes, actions, a Flexible set's VMs. */
async function scriptedPass(apiVersion: string): Promise<ArmExchange[]> {
  const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 20 });
  const control = new SimulatorControl(sim);
  try {
    const sub = `/subscriptions/${sim.subscriptionId}`;
    const vmss = `${sub}${RG}/virtualMachineScaleSets`;
    const q = `?api-version=${apiVersion}`;
    const headers = { authorization: "Bearer test" };
    // A write meets 409 while the previous one on the scale set runs: it is sent again once that one is done.
    const call = async (method: string, path: string, body?: unknown, query = q) =>
      waitFor(
        async () => {
          const res = await control.request(method, `${path}${query}`, {
            headers,
            ...(body === undefined ? {} : { body }),
          });
          return res.status !== 409 && res;
        },
        { what: `${method} ${path} to be accepted`, timeoutMs: 20_000, intervalMs: 10 },
      );
    return await record(async () => {
      await call("GET", `${sub}/providers/Microsoft.Compute/virtualMachineScaleSets`);
      await call("GET", vmss);
      const got = await call("GET", `${vmss}/web-prod-v001`);
      await call("GET", `${vmss}/web-prod-v001/virtualMachines`);
      await call("GET", `${vmss}/web-prod-v001/virtualMachines`, undefined, `${q}&$expand=instanceView`);
      await call("GET", `${vmss}/web-prod-v001/virtualMachines/0`);
      await call("GET", `${vmss}/web-prod-v001/virtualMachines/0/instanceView`);
      await call("GET", `${vmss}/web-prod-v001/instanceView`);
      await call("GET", `${vmss}/web-prod-v001/rollingUpgrades/latest`);
      const model = got.body as { location: string; sku: unknown; properties: Record<string, unknown> };
      await call("PUT", `${vmss}/web-prod-v003`, {
        location: model.location,
        sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 2 },
        tags: { app: "web" },
        properties: {
          upgradePolicy: { mode: "Manual" },
          virtualMachineProfile: model.properties.virtualMachineProfile,
        },
      });
      await call("PATCH", `${vmss}/web-prod-v003`, { tags: { app: "web", owner: "spec" } });
      for (const action of ["deallocate", "start", "poweroff", "restart", "reimage"]) {
        await call("POST", `${vmss}/web-prod-v003/${action}`, { instanceIds: ["0"] });
        await call("POST", `${vmss}/web-prod-v003/virtualMachines/1/${action}`);
      }
      await call("POST", `${vmss}/web-prod-v003/manualupgrade`, { instanceIds: ["0"] });
      // a Uniform instance's own network configuration (VirtualMachineScaleSetVMs_Update)
      const vm0 = (await call("GET", `${vmss}/web-prod-v003/virtualMachines/0`)).body as {
        location: string;
        properties: { networkProfileConfiguration: unknown };
      };
      await call("PUT", `${vmss}/web-prod-v003/virtualMachines/0`, {
        location: vm0.location,
        properties: { networkProfileConfiguration: vm0.properties.networkProfileConfiguration },
      });
      await call("POST", `${vmss}/web-prod-v003/delete`, { instanceIds: ["1"] });
      await call("POST", `${vmss}/web-prod-v003/setOrchestrationServiceState`, {
        serviceName: "AutomaticRepairs",
        action: "Suspend",
      });
      await call("DELETE", `${vmss}/web-prod-v003`);
      // A Rolling scale set: a model change rolls out, and rollingUpgrades/latest answers it
      await call("PUT", `${vmss}/roll-v001`, {
        location: model.location,
        sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 2 },
        properties: {
          upgradePolicy: { mode: "Rolling" },
          virtualMachineProfile: model.properties.virtualMachineProfile,
        },
      });
      await call("PATCH", `${vmss}/roll-v001`, { sku: { name: "Standard_D4s_v3" } });
      await waitFor(async () => (await call("GET", `${vmss}/roll-v001/rollingUpgrades/latest`)).status === 200, {
        what: "the rolling upgrade of roll-v001",
        timeoutMs: 20_000,
        intervalMs: 20,
      });
      await call("GET", `${vmss}/no-such-set`);
      // A Flexible scale set and its VMs
      await call("PUT", `${vmss}/flex-v001`, {
        location: model.location,
        sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 1 },
        properties: {
          orchestrationMode: "Flexible",
          platformFaultDomainCount: 1,
          virtualMachineProfile: {
            ...(model.properties.virtualMachineProfile as Record<string, unknown>),
            networkProfile: {
              ...(model.properties.virtualMachineProfile as { networkProfile: Record<string, unknown> }).networkProfile,
              networkApiVersion: "2020-11-01",
            },
          },
        },
      });
      const vms = await call("GET", `${sub}${RG}/virtualMachines`);
      await call("GET", `${sub}/providers/Microsoft.Compute/virtualMachines`);
      const vm = (vms.body as { value: { name: string }[] }).value[0]?.name;
      if (vm) {
        await call("GET", `${sub}${RG}/virtualMachines/${vm}`);
        await call("GET", `${sub}${RG}/virtualMachines/${vm}/instanceView`);
        await call("PATCH", `${sub}${RG}/virtualMachines/${vm}`, { tags: { owner: "spec" } });
        for (const action of ["poweroff", "start", "restart", "deallocate"]) {
          await call("POST", `${sub}${RG}/virtualMachines/${vm}/${action}`);
        }
        await call("DELETE", `${sub}${RG}/virtualMachines/${vm}`);
      }
      await call("GET", `${sub}/providers/Microsoft.Compute/locations/eastus/usages`);
      await call("GET", `${sub}/providers/Microsoft.Compute/skus`, undefined, `?api-version=2021-07-01`);
    });
  } finally {
    await control.close();
    await sim.close();
  }
}

for (const apiVersion of vendoredApiVersions()) {
  t.test(`every Compute route at ${apiVersion}: requests and answers as its specification defines them`, async (t) => {
    const exchanges = await scriptedPass(apiVersion);
    t.ok(exchanges.length > 40, `${exchanges.length} exchanges`);
    const answered = (re: RegExp, status: number) => exchanges.some((e) => re.test(e.path) && e.status === status);
    t.ok(answered(/\/rollingUpgrades\/latest$/, 200), "a rolling upgrade's answer is among them");
    t.ok(answered(/\/virtualMachines\/[^/]+\/instanceView$/, 200), "…a VM's instance view");
    t.ok(answered(/\/virtualMachineScaleSets\/no-such-set$/, 404), "…an error");
    t.same(check(exchanges), []);
  });
}

t.test(
  "the service's own traffic (@azure/arm-compute): requests and answers as the specification defines them",
  async (t) => {
    // @azure/arm-compute 25 speaks 2026-04-01, whose specification is generated from TypeSpec and not vendored: its
    // traffic is checked against the newest vendored one (every field the simulator sends there is defined by it).
    const newest = vendoredApiVersions().at(-1) as string;
    const env = await startTestEnv({ writeDurationMs: 50 });
    t.teardown(() => env.close());
    const run = async (operation: string, description: unknown) => {
      const submitted = await env.api<{ id: string }>("POST", `/azure/ops/${operation}`, description);
      t.equal(submitted.status, 202, `${operation} accepted`);
      const task = await env.waitForTask(submitted.body.id);
      t.equal(task.status.failed, false, `${operation}: ${JSON.stringify(task.history)}`);
    };
    const exchanges = await record(async () => {
      await run("createServerGroup", demoCreate(env.sim.subscriptionId));
      await run("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 4 } }));
      await run("disableServerGroup", demo("web-prod-v001"));
      await run("enableServerGroup", demo("web-prod-v001"));
      await run("destroyServerGroup", demo("web-prod-v002"));
      t.equal((await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001")).status, 200);
    });
    const compute = exchanges.filter(isComputeOperation);
    t.ok(compute.length > 10, `${compute.length} Compute exchanges`);
    t.same(
      compute.filter((e) => !/^20\d\d-\d\d-\d\d$/.test(e.apiVersion)).map((e) => e.path),
      [],
      "every request names its api-version",
    );
    t.same(check(exchanges, newest), []);
  },
);

const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const pythonMissing = await promisify(execFile)(PYTHON, ["-c", "import azure.identity, azure.mgmt.compute"]).then(
  () => undefined,
  () => `${PYTHON} cannot import azure.identity and azure.mgmt.compute (.ci/run installs Debian's python3-azure)`,
);

t.test(
  "Microsoft's Python SDK (2022-08-01): requests and answers as the specification defines them",
  { skip: pythonMissing ?? false },
  async (t) => {
    const client = {
      tenantId: "11111111-2222-4333-8444-555555555555",
      clientId: "python-sdk",
      secret: "python-secret",
    };
    const sim = await startSimulator({
      seed: true,
      timeScale: 0.001,
      writeDurationMs: 100,
      writeDurationsMs: { powerAction: 1500 },
    });
    t.teardown(() => sim.close());
    const control = new SimulatorControl(sim);
    t.teardown(() => control.close());
    t.equal((await control.request("POST", "/_sim/identity/clients", { body: client })).status, 201);
    await control.putScaleSet("demo-rg", "flex-py-v001", { capacity: 3, orchestrationMode: "Flexible" });
    const python = (script: string, scaleSet: string) =>
      promisify(execFile)(PYTHON, [fileURLToPath(new URL(`./python/${script}`, import.meta.url))], {
        timeout: 120_000,
        env: {
          ...process.env,
          SIM_URL: sim.url,
          SIM_TENANT: client.tenantId,
          SIM_CLIENT_ID: client.clientId,
          SIM_CLIENT_SECRET: client.secret,
          SIM_SUBSCRIPTION: sim.subscriptionId,
          SIM_RESOURCE_GROUP: "demo-rg",
          SIM_SCALE_SET: scaleSet,
          REQUESTS_CA_BUNDLE: fileURLToPath(import.meta.resolve("vmss-simulator/ca-cert.pem")),
          NO_PROXY: "127.0.0.1,localhost",
          no_proxy: "127.0.0.1,localhost",
        },
      });
    const exchanges = await record(async () => {
      await python("vmss_client.py", "web-prod-v001");
      await python("flexible_client.py", "flex-py-v001");
    });
    const compute = exchanges.filter(isComputeOperation);
    t.ok(compute.length > 10, `${compute.length} Compute exchanges`);
    t.same([...new Set(compute.map((e) => e.apiVersion))], ["2022-08-01"]);
    t.same(check(exchanges), []);
  },
);

t.test(
  "a wrong answer fails the check: a field the specification does not define, a value of the wrong type",
  async (t) => {
    const exchanges = await scriptedPass("2022-08-01");
    const get = exchanges.find((e) => e.method === "GET" && /virtualMachineScaleSets\/web-prod-v001$/.test(e.path));
    if (!get) return t.fail("the GET of web-prod-v001 was recorded");
    t.same(check([get]), [], "the answer as sent is clean");
    const answer = structuredClone(get.responseBody) as {
      sku: { capacity: unknown };
      properties: Record<string, unknown>;
    };
    answer.properties.notInTheSpecification = true;
    answer.sku.capacity = "3";
    const errors = check([{ ...get, responseBody: answer }]).sort();
    t.equal(errors.length, 2, errors.join("\n"));
    t.match(errors[0], /answer\.properties\.notInTheSpecification: not defined by the specification$/);
    t.match(errors[1], /answer\.sku\.capacity: expected a number, got a string \("3"\)$/);
    // …and a wrong answer the simulator itself sends: it keeps a model write's fields as given and answers them back.
    const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 20 });
    const control = new SimulatorControl(sim);
    const vmss = `/subscriptions/${sim.subscriptionId}${RG}/virtualMachineScaleSets/web-prod-v001`;
    const patched = await record(async () => {
      const res = await control.request("PATCH", `${vmss}?api-version=2022-08-01`, {
        headers: { authorization: "Bearer test" },
        body: { properties: { virtualMachineProfile: { notInTheSpecification: true } } },
      });
      t.equal(res.status, 200);
    });
    await control.close();
    await sim.close();
    const sent = check(patched).sort();
    t.equal(sent.length, 2, sent.join("\n"));
    t.match(sent, [
      /answer\.properties\.virtualMachineProfile\.notInTheSpecification: not defined by the specification$/,
      /request\.properties\.virtualMachineProfile\.notInTheSpecification: not defined by the specification$/,
    ]);
    // …and so does the answer the newest api-version gets, read as 2022-08-01: it has fields 2022-08-01 does not define.
    const newer = await scriptedPass("2024-11-01");
    const newerGet = newer.find((e) => e.method === "GET" && /virtualMachineScaleSets\/web-prod-v001$/.test(e.path));
    t.match(check(newerGet ? [newerGet] : [], "2022-08-01"), [/answer\.etag: not defined by the specification$/]);
  },
);
