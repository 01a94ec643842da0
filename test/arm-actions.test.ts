// The action table (src/azure/arm-actions.ts) against what the service really calls: every operation of the registry
// (its samples: test/helpers/operation-samples.ts), on Uniform sets, one with automatic repairs, and a Flexible one, a create, Clouddriver's reads and `doctor`'s checks run against
// the simulator, and each call in its log must map to a row of the table. A new ARM call without a row fails here;
// the roles in docs/real-azure.md are written from the table (npm run docs:role), and the last test keeps them so.
import type { Json } from "../testkit/json.ts";
import { readFileSync } from "node:fs";
import t from "tap";
import { ARM_ACTIONS, actionOfCall, actionsAt } from "../src/azure/arm-actions.ts";
import { REAL_AZURE_DOC, withRoles } from "../scripts/write-role.ts";
import { operationNames } from "../src/operations/registry.ts";
import { operationSamples, SAMPLE_SCALE_SETS } from "./helpers/operation-samples.ts";
import { startTestEnv } from "./helpers/service.ts";

const RG = "demo-rg";
const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());

async function run(operation: string, description: unknown): Promise<Json> {
  const submitted = await env.api("POST", `/azure/ops/${operation}`, description);
  if (submitted.status !== 202) throw new Error(`${operation}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return env.waitForTask(submitted.body.id);
}

t.test("every ARM call the operations, the reads and doctor make is a row of the action table", async (t) => {
  await env.simControl("PUT", `/_sim/scaleSets/${RG}/web-prod-v002/kind`, { automaticRepairs: true });
  for (const [name, body] of Object.entries(SAMPLE_SCALE_SETS))
    await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, body);

  // Every operation of the registry, each with its samples (test/helpers/operation-samples.ts).
  const samples = operationSamples(env.sim.subscriptionId);
  const tasks: Json[] = [];
  for (const operation of operationNames()) {
    t.ok(samples[operation]?.length, `${operation} has a sample description`);
    for (const description of samples[operation] ?? []) tasks.push(await run(operation, description));
  }
  t.same(
    tasks.filter((task) => task.status.failed).map((task) => task.status.status),
    [],
    "every operation succeeded",
  );
  t.equal((await env.api("GET", "/accounts/demo/checks")).status, 200, "doctor's checks ran");
  t.equal(
    (await env.api("GET", "/applications/web/clusters/demo/web-prod/azure")).status,
    200,
    "Clouddriver's reads ran",
  );

  const calls = await env.calls();
  t.ok(calls.length > 50, `the simulator logged the calls (${calls.length})`);
  const unmapped = [
    ...new Set(calls.filter((c) => !actionOfCall(c.method, c.path)).map((c) => `${c.method} ${c.path}`)),
  ];
  t.same(unmapped, [], "each call is in src/azure/arm-actions.ts (add a row with its action)");
  const used = new Set(calls.map((c) => actionOfCall(c.method, c.path)?.action));
  for (const action of [
    "Microsoft.Compute/virtualMachineScaleSets/setOrchestrationServiceState/action",
    "Microsoft.Compute/virtualMachines/read",
    "Microsoft.Network/networkInterfaces/write",
    "Microsoft.Authorization/locks/read",
    "Microsoft.Compute/virtualMachineScaleSets/delete/action",
  ])
    t.ok(used.has(action), `${action} was needed by a call`);
});

t.test("the table maps a call to its most specific row, case-insensitively, and ignores the query", async (t) => {
  const vmss = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-v001";
  t.equal(actionOfCall("GET", vmss)?.action, "Microsoft.Compute/virtualMachineScaleSets/read");
  t.equal(
    actionOfCall("post", `${vmss}/delete?api-version=2026-04-01`)?.action,
    "Microsoft.Compute/virtualMachineScaleSets/delete/action",
  );
  t.equal(
    actionOfCall("GET", `${vmss.toLowerCase()}/VIRTUALMACHINES`)?.action,
    "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read",
  );
  t.equal(actionOfCall("POST", `${vmss}/reimage`), undefined, "a call the service does not make has no row");
  t.equal(
    actionOfCall("GET", "/subscriptions/s/providers/Microsoft.Compute/locations/eastus/usages")?.action,
    "Microsoft.Compute/locations/usages/read",
    "a literal path wins over the provider's placeholder",
  );
  t.equal(new Set(ARM_ACTIONS.map((a) => a.action)).size, ARM_ACTIONS.length, "one row per action");
  t.ok(actionsAt("resourceGroup").actions.includes("Microsoft.ManagedIdentity/userAssignedIdentities/assign/action"));
  t.same(actionsAt("vault").dataActions, ["Microsoft.KeyVault/vaults/secrets/getSecret/action"]);
});

t.test("docs/real-azure.md's roles are the table's (npm run docs:role)", async (t) => {
  const page = readFileSync(REAL_AZURE_DOC, "utf8");
  t.equal(page, withRoles(page), "docs/real-azure.md's roles differ from the table: run npm run docs:role and commit");
  for (const a of actionsAt("resourceGroup").actions) t.match(page, `"${a}"`, `${a} is in the role`);
});
