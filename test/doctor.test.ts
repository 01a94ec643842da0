// `doctor`'s checks (GET /accounts/{account}/checks) against the simulator: all OK on a healthy subscription, and each
// FAIL and WARN produced by setting the simulator up to refuse it: a missing permission, an unregistered provider, an
// api-version withdrawn, quota below a cluster's max, an unreadable secret or load balancer, a skewed clock.
import t from "tap";
import {
  judgeArmBudget,
  judgeClockSkew,
  judgeCredential,
  judgeQuota,
  actionMatches,
  isAllowed,
} from "../src/checks/judge.ts";
import { budgetFigures } from "../src/azure/arm-budget/figures.ts";
import { startResettingTestEnv, startTestEnv } from "./helpers/service.ts";

const { env } = await startResettingTestEnv(t, {
  mapEnv: (e, sim) => ({
    ...e,
    ACCOUNTS: JSON.stringify([
      { name: "demo", subscriptionId: sim.subscriptionId, credential: "simulator", defaultResourceGroup: "demo-rg" },
      {
        name: "vaulted",
        subscriptionId: sim.subscriptionId,
        credential: "simulator",
        defaultResourceGroup: "demo-rg",
        regions: ["eastus"],
        vmAdmin: { keyVaultUrl: `${sim.url}/keyvaults/demo-kv` },
      },
      // No default resource group, and no scale set in its region: no resource group to check.
      { name: "ungrouped", subscriptionId: sim.subscriptionId, credential: "simulator", regions: ["westus2"] },
      // A service principal the simulator's Entra ID does not know: no token.
      {
        name: "unknown-principal",
        subscriptionId: sim.subscriptionId,
        tenantId: "00000000-0000-4000-8000-0000000000aa",
        endpoint: sim.url,
        authorityHost: sim.url,
        defaultResourceGroup: "demo-rg",
        credential: {
          type: "clientSecret",
          clientId: "11111111-2222-4333-8444-555555555555",
          clientSecretEnv: "DOCTOR_TEST_SECRET",
        },
      },
    ]),
    DOCTOR_TEST_SECRET: "not-a-secret-anyone-registered",
    TRUSTED_NETWORK: "true",
  }),
});
const SUB = `/subscriptions/${env.sim.subscriptionId}`;

interface Check {
  check: string;
  status: "OK" | "WARN" | "FAIL";
  found: string;
  fix?: string;
}

async function doctor(account = "demo", query = ""): Promise<{ status: string; checks: Check[] }> {
  const res = await env.api("GET", `/accounts/${account}/checks${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function find(report: { checks: Check[] }, name: string | RegExp): Check {
  const found = report.checks.find((c) => (typeof name === "string" ? c.check === name : name.test(c.check)));
  if (!found) throw new Error(`no check ${name} in ${report.checks.map((c) => c.check).join(", ")}`);
  return found;
}

t.test(
  "a healthy subscription: every check OK, the Key Vault secrets and the named load balancers included",
  async (t) => {
    const report = await doctor("vaulted");
    t.equal(report.status, "OK", JSON.stringify(report.checks.filter((c) => c.status !== "OK")));
    for (const name of [
      "credential",
      "clock",
      "subscription",
      "provider Microsoft.Compute",
      "provider Microsoft.Network",
      "provider Microsoft.KeyVault",
      "permissions on demo-rg",
      "permissions on the subscription",
      "quota in eastus",
      "ARM budget",
      "load balancer web-prod-v001-lb",
      "subnet default",
      "Key Vault secret VMUsername",
      "Key Vault secret VMSshPublicKey",
    ])
      t.equal(find(report, name).status, "OK", name);
  },
);

t.test("a permission denied on the resource group: FAIL naming the action and the role to assign there", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/permissions", {
    deny: [
      {
        action: "Microsoft.Compute/virtualMachineScaleSets/setOrchestrationServiceState/action",
        scope: `${SUB}/resourceGroups/demo-rg`,
      },
    ],
  });
  const report = await doctor();
  t.equal(report.status, "FAIL");
  const check = find(report, "permissions on demo-rg");
  t.equal(check.status, "FAIL");
  t.match(
    check.found,
    /missing 1 of \d+ actions: Microsoft.Compute\/virtualMachineScaleSets\/setOrchestrationServiceState\/action/,
  );
  t.match(check.fix, `--role "vmss-ops operator" --scope ${SUB}/resourceGroups/demo-rg`);
  t.equal(find(report, "permissions on the subscription").status, "OK", "denied below the subscription only");
});

t.test(
  "the subscription reader's actions denied: WARN (only doctor reads with them), and the role to assign",
  async (t) => {
    await env.simControl("PUT", "/_sim/subscription/permissions", {
      deny: [{ action: "Microsoft.Compute/locations/usages/read" }],
    });
    const report = await doctor();
    t.equal(report.status, "WARN");
    const check = find(report, "permissions on the subscription");
    t.equal(check.status, "WARN");
    t.match(check.found, /missing 1 of \d+ actions: Microsoft.Compute\/locations\/usages\/read/);
    t.match(check.fix, `--role "vmss-ops subscription reader" --scope ${SUB}`);
  },
);

t.test("an unregistered provider: FAIL with the command that registers it", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/providers/Microsoft.Network", { registrationState: "NotRegistered" });
  const check = find(await doctor(), "provider Microsoft.Network");
  t.equal(check.status, "FAIL");
  t.match(check.found, /Microsoft.Network is NotRegistered/);
  t.match(check.fix, `az provider register --namespace Microsoft.Network --subscription ${env.sim.subscriptionId}`);
});

t.test("a provider without the api-version the service calls: FAIL", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/providers/Microsoft.Compute", { withoutApiVersions: ["2026-04-01"] });
  const check = find(await doctor(), "provider Microsoft.Compute");
  t.equal(check.status, "FAIL");
  t.match(check.found, /does not offer api-version 2026-04-01/);
});

t.test("a provider that cannot be read: WARN, not checked, and the reader role to assign", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: `${SUB}/providers/Microsoft.Compute`,
    status: 403,
    code: "AuthorizationFailed",
    count: 1,
  });
  const check = find(await doctor(), "provider Microsoft.Compute");
  t.equal(check.status, "WARN");
  t.match(check.fix, /vmss-ops subscription reader/);
});

t.test("quota: FAIL below the largest cluster's growth to its max, WARN below twice that", async (t) => {
  // web-prod-v001: 3 × Standard_D2s_v3 recorded with max 10: growing needs 14 vCPUs; 16 are in use in eastus.
  await env.simControl("PATCH", "/_sim/scaleSets/demo-rg/web-prod-v001", { tags: { "vmss-ops.max": "10" } });
  await env.simControl("PUT", "/_sim/subscription/usages/eastus", { limits: { cores: 20 } });
  const failed = find(await doctor(), "quota in eastus");
  t.equal(failed.status, "FAIL");
  t.match(failed.found, /web-prod-v001 \(Standard_D2s_v3\) growing 3 → 10, regional vCPUs: needs 14, 4 free/);
  t.match(failed.fix, /request more cores quota in eastus: az quota update --resource-name cores/);

  await env.simControl("PUT", "/_sim/subscription/usages/eastus", { limits: { cores: 100, standardDSv3Family: 36 } });
  const warned = find(await doctor(), "quota in eastus");
  t.equal(warned.status, "WARN");
  t.match(warned.found, /standardDSv3Family vCPUs: needs 14, 20 free \(not twice/);
});

t.test("quota that cannot be read: WARN", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "/usages",
    status: 403,
    code: "AuthorizationFailed",
    count: 1,
  });
  t.equal(find(await doctor(), "quota in eastus").status, "WARN");
});

t.test("an unreadable Key Vault secret: FAIL with the role to assign on the vault", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "/keyvaults/demo-kv/secrets/VMSshPublicKey",
    status: 403,
    code: "Forbidden",
    message: "The user, group or application does not have secrets get permission on key vault 'demo-kv'.",
    count: 1,
  });
  const report = await doctor("vaulted");
  t.equal(report.status, "FAIL");
  const check = find(report, "Key Vault secret VMSshPublicKey");
  t.equal(check.status, "FAIL");
  t.match(check.found, /403 Forbidden/);
  t.match(check.fix, /Key Vault Secrets User/);
  t.equal(find(report, "Key Vault secret VMUsername").status, "OK");
});

t.test("a load balancer a server group names that cannot be read: FAIL; one that is gone: FAIL", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "loadBalancers/web-prod-v001-lb",
    status: 403,
    code: "AuthorizationFailed",
    count: 1,
  });
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "loadBalancers/web-prod-v002-lb",
    status: 404,
    code: "ResourceNotFound",
    count: 1,
  });
  const report = await doctor();
  const denied = find(report, "load balancer web-prod-v001-lb");
  t.equal(denied.status, "FAIL");
  t.match(denied.fix, `--scope ${SUB}/resourceGroups/demo-rg`);
  const gone = find(report, "load balancer web-prod-v002-lb");
  t.equal(gone.status, "FAIL");
  t.match(gone.found, /does not exist/);
});

t.test("a credential that gets no token: FAIL naming its kind, and nothing else is read", async (t) => {
  const report = await doctor("unknown-principal");
  t.equal(report.status, "FAIL");
  t.same(
    report.checks.map((c) => c.check),
    ["credential"],
  );
  t.match(report.checks[0].found, /^clientSecret: no token: /);
  t.match(report.checks[0].fix, /credential settings/);
});

t.test("a subscription Azure reports Warned: WARN; Disabled: FAIL", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/state", { state: "Warned" });
  t.equal(find(await doctor(), "subscription").status, "WARN");
  await env.simControl("PUT", "/_sim/subscription/state", { state: "Disabled" });
  const disabled = find(await doctor(), "subscription");
  t.equal(disabled.status, "FAIL");
  t.match(disabled.found, /is Disabled/);
});

t.test("a clock ten minutes behind Azure's: FAIL; three minutes: WARN", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/clock", { dateSkewSeconds: 600 });
  const failed = find(await doctor(), "clock");
  t.equal(failed.status, "FAIL");
  t.match(failed.found, /behind Azure's/);
  t.match(failed.fix, /NTP/);
  await env.simControl("PUT", "/_sim/subscription/clock", { dateSkewSeconds: 180 });
  t.equal(find(await doctor(), "clock").status, "WARN");
});

t.test("a subscription Azure does not know (404 SubscriptionNotFound): FAIL", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: `${SUB}`,
    status: 404,
    code: "SubscriptionNotFound",
    count: 1,
  });
  t.equal(find(await doctor(), "subscription").status, "FAIL");
});

t.test(
  "a subscription that cannot be read (403): WARN, its state not checked, and the reader role to assign",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: SUB,
      status: 403,
      code: "AuthorizationFailed",
      count: 1,
    });
    const check = find(await doctor(), "subscription");
    t.equal(check.status, "WARN");
    t.match(check.found, /could not be read \(403 AuthorizationFailed/);
    t.match(check.fix, `"vmss-ops subscription reader" role (docs/real-azure.md) on ${SUB}`);
  },
);

t.test(
  "the subscription's scale sets cannot be listed: WARN, quota and named resources checked without them",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: `${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets`,
      status: 403,
      code: "AuthorizationFailed",
      count: 1,
    });
    const report = await doctor();
    const check = find(report, "scale sets");
    t.equal(check.status, "WARN");
    t.match(check.found, /could not be listed \(403 AuthorizationFailed/);
    t.notOk(
      report.checks.some((c) => c.check.startsWith("load balancer ")),
      "no load balancer named without the scale sets",
    );
  },
);

t.test(
  "effective permissions that cannot be read: WARN with the role; a resource group that is not there: FAIL",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: `${SUB}/resourceGroups/demo-rg/providers/Microsoft.Authorization/permissions`,
      status: 403,
      code: "AuthorizationFailed",
      count: 1,
    });
    const denied = find(await doctor(), "permissions on demo-rg");
    t.equal(denied.status, "WARN");
    t.match(denied.found, /the effective permissions could not be read \(403 AuthorizationFailed/);
    t.match(denied.fix, `--role "vmss-ops operator" --scope ${SUB}/resourceGroups/demo-rg`);

    const missing = find(await doctor("demo", "?resourceGroup=no-such-rg"), "permissions on no-such-rg");
    t.equal(missing.status, "FAIL");
    t.match(missing.found, /404 ResourceGroupNotFound/);
    t.match(missing.fix, `create the resource group, or name the right one: ${SUB}/resourceGroups/no-such-rg`);
  },
);

t.test("an account with no resource group to check: WARN naming --resource-group", async (t) => {
  const report = await doctor("ungrouped");
  const check = find(report, "permissions");
  t.equal(check.status, "WARN");
  t.match(check.found, /no default resource group and no scale sets/);
  t.match(check.fix, "vmss-ops doctor --account <name> --resource-group <group>");
  t.equal(find(report, "quota in westus2").status, "OK", "its region's quota is still checked");
});

t.test(
  "a named resource Azure answers with neither the resource nor a refusal: WARN; a read that fails on the network: WARN",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "loadBalancers/web-prod-v001-lb",
      status: 400,
      code: "InvalidResourceReference",
      count: 1,
    });
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "loadBalancers/web-prod-v002-lb",
      action: "dropConnection",
      count: 100,
    });
    const report = await doctor();
    const odd = find(report, "load balancer web-prod-v001-lb");
    t.equal(odd.status, "WARN");
    t.match(odd.found, /400 InvalidResourceReference/);
    t.match(odd.fix, /run doctor again/);
    const dropped = find(report, /web-prod-v002-lb/);
    t.equal(dropped.status, "WARN", dropped.found);
    t.match(dropped.found, /could not be read: /);
    t.match(dropped.fix, /check the network path from the service to Azure/);
  },
);

t.test("an unknown account is 404 naming the accounts; a bad resource group name is 400", async (t) => {
  const unknown = await env.api("GET", "/accounts/nope/checks");
  t.equal(unknown.status, 404);
  t.match(unknown.body.message, /no account nope: the accounts are demo, vaulted, ungrouped, unknown-principal/);
  const bad = await env.api("GET", "/accounts/demo/checks?resourceGroup=bad%2Fname");
  t.equal(bad.status, 400);
});

t.test("the rules without Azure: action patterns, the clock, quota without server groups", async (t) => {
  t.ok(actionMatches("*", "Microsoft.Compute/virtualMachineScaleSets/read"));
  t.ok(actionMatches("microsoft.compute/*", "Microsoft.Compute/virtualMachineScaleSets/read"));
  t.ok(actionMatches("*/read", "Microsoft.Network/loadBalancers/read"));
  t.notOk(actionMatches("*/read", "Microsoft.Network/networkInterfaces/write"));
  t.notOk(
    isAllowed(
      [{ actions: ["*"], notActions: ["Microsoft.Compute/*/delete"] }],
      "Microsoft.Compute/virtualMachineScaleSets/delete",
      false,
    ),
  );
  t.ok(
    isAllowed(
      [{ actions: ["*"], notActions: ["x"] }, { actions: ["Microsoft.Compute/*"] }],
      "Microsoft.Compute/a",
      false,
    ),
  );
  // Node's HTTP server always sends Date, as Azure does: the rule alone.
  t.equal(judgeClockSkew(undefined, 0).status, "WARN", "no Date header: not compared");
  // The SDK's credentials compute expiresOnTimestamp from expires_in on this machine's clock, so only a credential
  // that reports an absolute expiry (managed identity's expires_on) on a skewed clock gets here: the rule alone.
  const expired = judgeCredential({ kind: "managedIdentity", token: { expiresOnTimestamp: 1000 }, now: 181_000 });
  t.equal(expired.status, "FAIL");
  t.match(expired.found, /already expired \(3 min ago\)/);
  t.match(expired.fix, /NTP/);
  t.equal(judgeClockSkew(new Date(10_000).toUTCString(), 10_400).status, "OK");
  const noGroups = judgeQuota("s", "eastus", [], [], {
    ok: true,
    body: { value: [{ name: { value: "virtualMachineScaleSets" }, currentValue: 2500, limit: 2500 }] },
  });
  t.equal(noGroups.status, "FAIL", "no room for one more scale set");
});

t.test(
  "the ARM budget: within Azure's limits OK; not counted WARN; above Azure's FAIL; spent by another WARN",
  async (t) => {
    const ok = find(await doctor("demo"), "ARM budget");
    t.equal(ok.status, "OK");
    t.match(
      ok.found,
      /^at most 1200 writes, 12000 reads and 15000 deletes an hour in subscription .*, within Azure's published limits/,
    );

    // A service that does not count its calls (ARM_BUDGET=false).
    const uncounted = await startTestEnv({ env: { ARM_BUDGET: "false" } });
    t.teardown(() => uncounted.close());
    const report = (await uncounted.api("GET", "/accounts/demo/checks")).body as { checks: Check[] };
    const warn = find(report, "ARM budget");
    t.equal(warn.status, "WARN");
    t.match(warn.found, /does not count its ARM calls \(ARM_BUDGET=false\)/);
    t.equal(warn.fix, "ARM_BUDGET=true (the default; docs/configuration.md)");

    // An account with a real credential (a client secret the simulator's Entra ID knows) on a service whose budget
    // refills twice as fast as Azure's: more than Azure allows a subscription.
    const CLIENT = {
      tenantId: "00000000-0000-4000-8000-0000000000aa",
      clientId: "11111111-2222-4333-8444-555555555555",
    };
    const doubled = await startTestEnv({
      env: { ARM_BUDGET_REFILL_SCALE: "2", TRUSTED_NETWORK: "true", PROOF_SECRET: "a-secret-the-simulator-knows" },
      mapEnv: (e, sim) => ({
        ...e,
        ACCOUNTS: JSON.stringify([
          {
            name: "proof",
            subscriptionId: sim.subscriptionId,
            tenantId: CLIENT.tenantId,
            endpoint: sim.url,
            authorityHost: sim.url,
            defaultResourceGroup: "demo-rg",
            credential: { type: "clientSecret", clientId: CLIENT.clientId, clientSecretEnv: "PROOF_SECRET" },
          },
        ]),
      }),
    });
    t.teardown(() => doubled.close());
    await doubled.simControl("POST", "/_sim/identity/clients", { ...CLIENT, secret: "a-secret-the-simulator-knows" });
    const real = find((await doubled.api("GET", "/accounts/proof/checks")).body as { checks: Check[] }, "ARM budget");
    t.equal(real.status, "FAIL", real.found);
    t.match(real.found, /would spend more than Azure allows a subscription: ARM reads 24000\/h \(burst 12000\)/);
    t.match(real.fix, /ARM_BUDGET_REFILL_SCALE=1/);

    // The rule without Azure: twice Azure's refill on a real subscription; the same against the simulator, whose clock
    // runs faster.
    const twice = budgetFigures({ refillScale: 2 });
    const fail = judgeArmBudget({ subscriptionId: "s", figures: twice, simulator: false });
    t.equal(fail.status, "FAIL");
    t.match(fail.found, /ARM writes 2400\/h \(burst 1200\) against Azure's 1200\/h/);
    t.match(fail.fix, /ARM_BUDGET_REFILL_SCALE=1/);
    t.equal(judgeArmBudget({ subscriptionId: "s", figures: twice, simulator: true }).status, "OK");
    const spent = judgeArmBudget({
      subscriptionId: "s",
      figures: budgetFigures(),
      simulator: false,
      remainingReads: 300,
    });
    t.equal(spent.status, "WARN");
    t.match(spent.found, /Azure reports 300 reads left this hour: another caller is spending/);
  },
);

t.test(
  "another caller spending the subscription's reads: Azure's count on the subscription read is low, the ARM budget WARNs",
  async (t) => {
    // A service of its own: Azure's low count lowers the service's read budget too, and its cache reads then wait for
    // the hour's refill (src/azure/arm-budget/), which the other tests here must not inherit.
    const busy = await startTestEnv();
    t.teardown(() => busy.close());
    // Refill slowed to a crawl (the levels stay), so the reads spent are still gone when doctor reads the subscription.
    await busy.simControl("PUT", "/_sim/config", { throttling: { scale: 0.00001 } });
    const { body: spent } = await busy.simControl<{ remaining: number }>("POST", "/_sim/throttling/spend", {
      budget: "reads",
      tokens: 11_700,
    });
    t.ok(spent.remaining <= 300, `${spent.remaining} reads left`);
    const report = (await busy.api("GET", "/accounts/demo/checks")).body as { status: string; checks: Check[] };
    const check = find(report, "ARM budget");
    t.equal(check.status, "WARN", check.found);
    const left = Number(/Azure reports (\d+) reads left this hour/.exec(check.found)?.[1]);
    t.ok(left <= spent.remaining && left < 1200, `the subscription read's own count: ${left}`);
    t.match(check.found, /another caller is spending the subscription's budget/);
    t.match(check.fix, /az monitor activity-log list/);
    t.equal(report.status, "WARN", "nothing else is wrong");
  },
);

t.test("a region's VM sizes: smallest first, restrictions and quota headroom as Azure reports them", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/skus/eastus", { notAvailable: ["Standard_B1ls"] });
  await env.simControl("PUT", "/_sim/subscription/usages/eastus", { limits: { standardBSFamily: 1 } });
  const res = await env.api("GET", "/accounts/demo/regions/eastus/vm-sizes");
  t.equal(res.status, 200, JSON.stringify(res.body));
  const sizes = res.body.sizes as { name: string; vCPUs: number; restriction?: string; freeVCPUs: number }[];
  t.same(
    sizes.slice(0, 3).map((s) => s.name),
    ["Standard_B1ls", "Standard_B1s", "Standard_B2s"],
  );
  t.ok(
    sizes.every((s, i) => i === 0 || sizes[i - 1].vCPUs <= s.vCPUs),
    "by vCPUs",
  );
  t.equal(sizes[0].restriction, "NotAvailableForSubscription");
  t.equal(sizes[1].restriction, undefined);
  t.equal(sizes[1].freeVCPUs, 1, "the B-series family's headroom");
  t.equal(res.body.regionalFreeVCPUs, 100 - 16, "regional vCPUs: the demo's 16 in use");

  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "/providers/Microsoft.Compute/skus",
    status: 403,
    code: "AuthorizationFailed",
    count: 1,
  });
  const refused = await env.api("GET", "/accounts/demo/regions/eastus/vm-sizes");
  t.equal(refused.status, 502);
  t.equal(refused.body.error, "AzureError");
  t.match(refused.body.message, /the resource SKUs: 403 AuthorizationFailed/);
  t.equal(
    (await env.api("GET", "/accounts/demo/regions/East%20US/vm-sizes")).status,
    400,
    "a region Azure would refuse",
  );
});

t.test("a resource group's contents: each resource with its type and tags; a group that is not there", async (t) => {
  const demo = await env.api("GET", "/accounts/demo/resource-groups/demo-rg/contents");
  t.equal(demo.status, 200);
  t.equal(demo.body.exists, true);
  const types = new Set((demo.body.resources as { type: string }[]).map((r) => r.type));
  for (const type of [
    "Microsoft.Compute/virtualMachineScaleSets",
    "Microsoft.Network/virtualNetworks",
    "Microsoft.Network/loadBalancers",
    "Microsoft.ManagedIdentity/userAssignedIdentities",
  ])
    t.ok(types.has(type), type);
  const missing = await env.api("GET", "/accounts/demo/resource-groups/no-such-rg/contents");
  t.same(missing.body, { account: "demo", resourceGroup: "no-such-rg", exists: false, resources: [] });
  await env.simControl("PUT", "/_sim/subscription/permissions", {
    deny: [{ action: "Microsoft.Resources/subscriptions/resourceGroups/resources/read" }],
  });
  t.equal(
    find(await doctor("demo", "?resourceGroup=demo-rg"), "permissions on demo-rg").status,
    "FAIL",
    "doctor names the action",
  );
});
