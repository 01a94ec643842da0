import t from "tap";
import { parseRemainingHeader, policyScope, RateLimitBudget, scopeOf } from "../src/azure/rate-limit-budget.ts";

t.test("the header's comma-separated policy;count pairs", async (t) => {
  t.same(
    parseRemainingHeader("Microsoft.Compute/UpdateVMScaleSet3Min;37,Microsoft.Compute/UpdateVMScaleSet30Min;217"),
    [
      ["Microsoft.Compute/UpdateVMScaleSet3Min", 37],
      ["Microsoft.Compute/UpdateVMScaleSet30Min", 217],
    ],
  );
  t.same(parseRemainingHeader("garbage, ;5,Microsoft.Compute/X;-1,Microsoft.Compute/Y;2"), [
    ["Microsoft.Compute/Y", 2],
  ]);
});

t.test("scopes: a scale set (case-folded) or a subscription", async (t) => {
  t.equal(
    scopeOf(
      "https://h/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/Web/virtualMachines?api-version=1",
    ),
    "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/web",
  );
  t.equal(
    scopeOf("https://h/subscriptions/S/providers/Microsoft.Compute/locations/eastus/operations/1"),
    "subscriptions/s",
  );
  t.equal(scopeOf("https://h/health"), undefined);
  t.equal(
    scopeOf(
      "https://h/health?next=/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/Web",
    ),
    undefined,
    "a query is not the call's path",
  );
});

t.test(
  "the same header read again (each listener of a response reads it) gives the same counts, read-only",
  async (t) => {
    const header = "Microsoft.Compute/GetVMScaleSetResource;32,Microsoft.Compute/GetVMScaleSetSubscriptionMaximum;1999";
    const first = parseRemainingHeader(header);
    t.equal(parseRemainingHeader(header), first);
    t.throws(() => (first as [string, number][]).push(["x", 1]));
    t.throws(() => ((first[0] as [string, number])[1] = 0));
    t.same(parseRemainingHeader("Microsoft.Compute/GetVMScaleSetResource;31"), [
      ["Microsoft.Compute/GetVMScaleSetResource", 31],
    ]);
    t.same(parseRemainingHeader(header)[0], ["Microsoft.Compute/GetVMScaleSetResource", 32]);
  },
);

t.test("keeps the latest count per scope and policy, newest first, bounded", async (t) => {
  const b = new RateLimitBudget(2);
  const at = (url: string, header: string) =>
    b.onArmResponse({ url, headers: { get: (n) => (n === "x-ms-ratelimit-remaining-resource" ? header : undefined) } });
  at("https://h/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/a", "P;5");
  at("https://h/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/a", "P;4");
  t.same(
    b.snapshot().map((e) => e.remaining),
    [4],
    "replaced, not appended",
  );
  at("https://h/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/b", "P;9");
  at("https://h/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/c", "P;8");
  t.same(
    b.snapshot().map((e) => e.scope.at(-1)),
    ["c", "b"],
    "the oldest entry went when the bound was reached",
  );
});

t.test(
  "a subscription-wide policy is kept once for the subscription, whichever scale set's answer reported it",
  async (t) => {
    t.equal(
      policyScope(
        "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/web",
        "Microsoft.Compute/VMScaleSetActionsSubscriptionMaximum",
      ),
      "subscriptions/s",
    );
    t.equal(
      policyScope(
        "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/web",
        "Microsoft.Compute/VMScaleSetActionsResource",
      ),
      "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/web",
    );
    const b = new RateLimitBudget();
    const at = (name: string, header: string) =>
      b.onArmResponse({
        url: `https://h/subscriptions/S/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`,
        headers: { get: (n) => (n === "x-ms-ratelimit-remaining-resource" ? header : undefined) },
      });
    // As Azure answers a scale set's write (test/fixtures/azure-recordings/vmss-update-2024-11-01.json).
    at(
      "a",
      "Microsoft.Compute/VMScaleSetActionsSubscriptionMaximum;1499,Microsoft.Compute/VMScaleSetBatchedVMRequestsSubscriptionMaximum;5999,Microsoft.Compute/VmssQueuedVMOperations;0",
    );
    at(
      "b",
      "Microsoft.Compute/VMScaleSetActionsSubscriptionMaximum;1498,Microsoft.Compute/VMScaleSetBatchedVMRequestsSubscriptionMaximum;5998,Microsoft.Compute/VmssQueuedVMOperations;0",
    );
    const entries = b
      .snapshot()
      .map((e) => `${e.scope} ${e.policy.replace("Microsoft.Compute/", "")} ${e.remaining}`)
      .sort();
    t.same(
      entries,
      [
        "subscriptions/s VMScaleSetActionsSubscriptionMaximum 1498",
        "subscriptions/s VMScaleSetBatchedVMRequestsSubscriptionMaximum 5998",
        "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/a VmssQueuedVMOperations 0",
        "subscriptions/s/resourcegroups/rg/virtualmachinescalesets/b VmssQueuedVMOperations 0",
      ],
      "two scale sets' answers: the subscription's counts once, the latest; each scale set's own",
    );
  },
);
