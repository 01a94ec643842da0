// The kinds table and the pure decisions around it, table-driven without a simulator: what each operation supports,
// when a model change Azure rolls out itself counts as done, when automatic repairs are suspended and resumed, and
// what counts as a running instance.
import { readFileSync } from "node:fs";
import t from "tap";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { RefusalError } from "../src/azure/arm-failure.ts";
import { confirmation, isRunningInstance, stoppedInstances } from "../src/azure/scale-set-state.ts";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import { disableServerGroup } from "../src/operations/disable-server-group.ts";
import { rollingUpgrade } from "../src/operations/rolling-upgrade.ts";
import { releaseStep, suspendStep, TAG_REPAIRS_SUSPENDED_BY } from "../src/operations/repairs-suspension.ts";
import {
  azureRolloutStep,
  KIND_OPERATIONS,
  kindOf,
  refuseProtected,
  refuseUnsupported,
  SUPPORT,
  supportFor,
} from "../src/operations/scale-set-kinds.ts";
import { stepOfKind } from "./helpers/steps.ts";

const REF = { account: "demo", subscriptionId: "sub", resourceGroup: "rg", name: "web-v001", region: "eastus" };
const POOL =
  "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/web";

function nics(pools: string[]) {
  return [
    { name: "nic", ipConfigurations: [{ name: "ip", loadBalancerBackendAddressPools: pools.map((id) => ({ id })) }] },
  ];
}

function scaleSet(extra: Partial<VirtualMachineScaleSet> = {}, pools: string[] = [POOL]): VirtualMachineScaleSet {
  return {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", capacity: 3 },
    provisioningState: "Succeeded",
    upgradePolicy: { mode: "Manual" },
    virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nics(pools) } },
    ...extra,
  };
}

function vm(
  id: string,
  pools: string[],
  power = "running",
  extra: Partial<VirtualMachineScaleSetVM> = {},
): VirtualMachineScaleSetVM {
  return {
    instanceId: id,
    provisioningState: "Succeeded",
    networkProfileConfiguration: { networkInterfaceConfigurations: nics(pools) },
    instanceView: { statuses: [{ code: "ProvisioningState/succeeded" }, { code: `PowerState/${power}` }] },
    ...extra,
  } as VirtualMachineScaleSetVM;
}

t.test("kindOf reads what Azure reports; absent fields are the REST defaults (Uniform, Manual)", async (t) => {
  t.same(kindOf(scaleSet({ upgradePolicy: undefined })), {
    orchestration: "Uniform",
    upgrade: "Manual",
    repairs: false,
    spot: false,
  });
  t.same(
    kindOf(
      scaleSet({
        orchestrationMode: "Flexible",
        upgradePolicy: { mode: "rolling" as "Rolling" },
        automaticRepairsPolicy: { enabled: true },
        virtualMachineProfile: { priority: "Spot" },
      }),
    ),
    { orchestration: "Flexible", upgrade: "Rolling", repairs: true, spot: true },
  );
});

t.test(
  "the table: every operation works on Flexible; rollingUpgrade refuses Rolling and Automatic; the rest supported",
  async (t) => {
    for (const op of KIND_OPERATIONS) {
      t.equal(
        supportFor(op, { orchestration: "Flexible", upgrade: "Manual", repairs: false, spot: false }),
        undefined,
        `${op} works on Flexible`,
      );
      t.equal(
        supportFor(op, { orchestration: "Uniform", upgrade: "Manual", repairs: true, spot: true }),
        undefined,
        `${op} supports repairs and Spot`,
      );
      for (const upgrade of ["Rolling", "Automatic"] as const) {
        const cell = supportFor(op, { orchestration: "Uniform", upgrade, repairs: false, spot: false });
        if (op === "rollingUpgrade")
          t.match(cell, { supported: false, code: `${upgrade}UpgradePolicy` }, `${op} on ${upgrade}`);
        else t.equal(cell, undefined, `${op} on ${upgrade}`);
      }
      for (const cell of Object.values(SUPPORT[op]))
        t.ok(cell.supported ? cell.how.length > 0 : cell.why.length > 0, "every cell says how or why");
    }
    t.throws(
      () =>
        refuseUnsupported(
          "rollingUpgrade",
          scaleSet({ orchestrationMode: "Flexible", automaticRepairsPolicy: { enabled: true } }),
          "web-v001",
        ),
      {
        code: "FlexibleRepairsUnreadable",
        message: /^rollingUpgrade refused on web-v001: it uses Flexible orchestration with automatic repairs enabled/,
      },
    );
    t.doesNotThrow(
      () =>
        refuseUnsupported(
          "terminateInstanceAndDecrementServerGroup",
          scaleSet({ orchestrationMode: "Flexible", automaticRepairsPolicy: { enabled: true } }),
          "x",
        ),
      "an operation the table says does not apply is decided elsewhere (its planner is terminateInstances's)",
    );
  },
);

t.test("every planner consults the table on its read, before its own plan", async (t) => {
  const flexible: ScaleSetSnapshot = {
    vmss: scaleSet({ orchestrationMode: "Flexible", automaticRepairsPolicy: { enabled: true } }),
    etag: '"1"',
    vms: [],
  };
  const description = {
    credentials: "demo",
    region: "eastus",
    serverGroupName: "web-v001",
    tags: { release: "2" },
  };
  t.throws(
    () => rollingUpgrade.planner(description, REF).plan(flexible),
    { code: "FlexibleRepairsUnreadable" },
    rollingUpgrade.name,
  );
  const rolling: ScaleSetSnapshot = { vmss: scaleSet({ upgradePolicy: { mode: "Rolling" } }), etag: '"1"', vms: [] };
  t.throws(
    () => rollingUpgrade.planner(description, REF).plan(rolling),
    { code: "RollingUpgradePolicy" },
    `${rollingUpgrade.name} on Rolling`,
  );
});

t.test(
  "a model change Azure rolls out itself: wait while VMs are behind, fail on a stopped rollout, nothing once all moved",
  async (t) => {
    const rolling = scaleSet({ upgradePolicy: { mode: "Rolling" } }, []);
    const snap = (vms: VirtualMachineScaleSetVM[], rollout?: ScaleSetSnapshot["rollout"]): ScaleSetSnapshot => ({
      vmss: rolling,
      etag: '"2"',
      vms,
      ...(rollout ? { rollout } : {}),
    });
    t.equal(azureRolloutStep(snap([]), [], "x", "web-v001"), undefined);
    const three = [vm("0", []), vm("1", [POOL]), vm("2", [POOL])];
    t.match(
      azureRolloutStep(
        snap(three, { code: "RollingForward", progress: { successful: 1, failed: 0, pending: 2 } }),
        ["1", "2"],
        "the change",
        "web-v001",
      ),
      {
        kind: "wait",
        summary:
          /upgrade policy Rolling\): instance\(s\) 1, 2 not on the new model yet, Azure reports 1 moved, 2 to go/,
      },
    );
    for (const code of ["Faulted", "Cancelled", "RollingBack"]) {
      t.throws(
        () =>
          azureRolloutStep(
            snap(three, { code, error: "UpgradePolicyBreached: too many unhealthy" }),
            ["2"],
            "the change",
            "web-v001",
          ),
        {
          code: "RolloutFailed",
          message: new RegExp(
            `ended ${code} \\(UpgradePolicyBreached: too many unhealthy\\): instance\\(s\\) 2 do not run`,
          ),
        },
      );
    }

    // disable, planned on a read made while Azure is still rolling the removal out: it waits, it does not say done.
    const disabled = scaleSet(
      {
        upgradePolicy: { mode: "Rolling" },
        tags: {
          "vmss-ops.disabled": "pools",
          "vmss-ops.disabled-pools.0": JSON.stringify([["nic", "ip", "lb", POOL]]),
        },
      },
      [],
    );
    const planner = disableServerGroup.planner(
      { credentials: "demo", region: "eastus", serverGroupName: "web-v001" },
      REF,
    );
    const midway: ScaleSetSnapshot = {
      vmss: disabled,
      etag: '"3"',
      vms: [vm("0", []), vm("1", [POOL]), vm("2", [POOL])],
      rollout: { code: "RollingForward" },
    };
    t.match(planner.plan(midway), { kind: "wait", summary: /instance\(s\) 1, 2 not on the new model yet/ });
    t.match(planner.plan({ ...midway, vms: [vm("0", []), vm("1", []), vm("2", [])], rollout: { code: "Completed" } }), {
      kind: "done",
    });
    t.match(
      planner.plan({
        ...midway,
        vms: [vm("0", []), vm("1", []), vm("2", [POOL], "deallocated")],
        rollout: { code: "Completed" },
      }),
      { kind: "done" },
      "an evicted VM is not waited for",
    );
    // Under Manual the same read is rolled out by us.
    const manual: ScaleSetSnapshot = { ...midway, vmss: { ...disabled, upgradePolicy: { mode: "Manual" } } };
    t.match(planner.plan(manual), { kind: "manualUpgrade", instanceIds: ["1", "2"] });
    // Automatic: no rolling-upgrade status to read; the VMs decide.
    const automatic: ScaleSetSnapshot = {
      vmss: { ...disabled, upgradePolicy: { mode: "Automatic" } },
      etag: '"3"',
      vms: midway.vms,
    };
    t.match(planner.plan(automatic), { kind: "wait", summary: /upgrade policy Automatic/ });
  },
);

t.test("automatic repairs: who suspends, who resumes", async (t) => {
  const snap = (repairs: string | undefined, mark?: string): ScaleSetSnapshot => ({
    vmss: scaleSet({
      automaticRepairsPolicy: { enabled: repairs !== undefined },
      tags: mark ? { [TAG_REPAIRS_SUSPENDED_BY]: mark } : {},
    }),
    etag: '"1"',
    vms: [],
    ...(repairs !== undefined ? { repairs } : {}),
  });
  t.equal(suspendStep(snap(undefined), "t1"), undefined, "not enabled: nothing to suspend");
  t.equal(suspendStep(snap("NotRunning"), "t1"), undefined);
  t.match(
    suspendStep(snap("Running"), "t1"),
    { kind: "update", patch: { tags: { [TAG_REPAIRS_SUSPENDED_BY]: "t1" } } },
    "mark first: a replica that dies next is known to have suspended",
  );
  t.match(suspendStep(snap("Running", "t1"), "t1"), { kind: "repairs", action: "Suspend" });
  t.equal(suspendStep(snap("Suspended", "t1"), "t1"), undefined, "suspended by us: go on");
  t.equal(suspendStep(snap("Suspended"), "t1"), undefined, "suspended by someone else: left alone, not marked");
  t.equal(suspendStep(snap("Suspended", "t0"), "t1"), undefined, "suspended by another task: left alone");

  t.match(releaseStep(snap("Suspended", "t1"), "t1"), { kind: "repairs", action: "Resume" });
  t.match(releaseStep(snap("Running", "t1"), "t1"), { kind: "update", patch: { tags: {} } }, "resumed: the mark goes");
  t.notOk(
    TAG_REPAIRS_SUSPENDED_BY in (stepOfKind(releaseStep(snap("Running", "t1"), "t1"), "update").patch.tags ?? {}),
  );
  t.match(releaseStep(snap("Suspended"), "t1"), { kind: "done", summary: /stay suspended/ });
  t.match(releaseStep(snap("Suspended", "t0"), "t1"), { kind: "done" });
});

t.test(
  "running means Azure says it runs: an evicted (deallocated) VM is listed, Succeeded, and not running",
  async (t) => {
    t.equal(isRunningInstance(vm("0", [])), true);
    t.equal(isRunningInstance(vm("0", [], "deallocated")), false);
    t.equal(isRunningInstance(vm("0", [], "stopped")), false);
    t.equal(
      isRunningInstance({
        location: "eastus",
        instanceId: "0",
        provisioningState: "Succeeded",
      }),
      true,
      "listed without its instance view: its provisioning state decides",
    );
    t.equal(isRunningInstance(vm("0", [], "running", { provisioningState: "Creating" })), false);
    const read = {
      vmss: scaleSet({ virtualMachineProfile: { priority: "Spot" } }),
      vms: [vm("0", [], "deallocated"), vm("1", []), vm("2", [])],
    };
    t.same(
      stoppedInstances(read).map((v) => v.instanceId),
      ["0"],
    );
    t.same(confirmation(read), {
      confirmed: false,
      instances: 2,
      reason:
        "capacity 3, but Azure lists 2 running instance(s); not running: instance(s) 0 (deallocated) (Spot: evicted by Azure)",
    });
  },
);

t.test("protected instances are refused, all of the batch, naming each protection", async (t) => {
  t.doesNotThrow(() =>
    refuseProtected(
      [vm("0", []), vm("1", [], "running", { protectionPolicy: { protectFromScaleIn: false } })],
      "web-v001",
    ),
  );
  const err = t.throws(() =>
    refuseProtected(
      [
        vm("0", [], "running", { protectionPolicy: { protectFromScaleSetActions: true } }),
        vm("1", [], "running", { protectionPolicy: { protectFromScaleIn: true } }),
      ],
      "web-v001",
    ),
  ) as RefusalError;
  t.equal(err.code, "InstanceProtected");
  t.equal(err.kind, "terminal");
  t.match(
    err.message,
    /instance\(s\) 0 \(protectFromScaleSetActions\), 1 \(protectFromScaleIn\) of web-v001 are protected/,
  );
});

t.test("docs/scale-set-kinds.md has a row for every operation of the table and names every refusal", async (t) => {
  const doc = readFileSync(new URL("../docs/scale-set-kinds.md", import.meta.url), "utf8");
  for (const op of KIND_OPERATIONS) t.match(doc, new RegExp(`\\| \`${op}\``), op);
  const codes = new Set(
    KIND_OPERATIONS.flatMap((op) => Object.values(SUPPORT[op]).flatMap((c) => (c.supported ? [] : [c.code]))),
  );
  for (const code of codes) t.match(doc, code, code);
});

t.test(
  "README's table of kinds says, for every operation and kind, what the table in scale-set-kinds.ts decides",
  async (t) => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    // The README's columns after "Uniform" (the baseline every operation supports), as the table's keys. A row may
    // name several operations; a refused cell is the refusal's code.
    const columns = ["Flexible", "Rolling", "Automatic", "repairs", "flexibleRepairs", "spot"] as const;
    const rows = [...readme.matchAll(/^\| (`[^|]*`) \|(.*)\|$/gm)].map((m) => ({
      ops: m[1].split(", ").map((o) => o.replaceAll("`", "")),
      cells: m[2].split("|").map((c) => c.trim()),
    }));
    for (const op of KIND_OPERATIONS) {
      const row = rows.filter((r) => r.ops.includes(op));
      t.equal(row.length, 1, `README has one row for ${op}`);
      if (row.length !== 1) continue;
      const expected = [
        "yes",
        ...columns.map((c) => {
          const cell = SUPPORT[op][c];
          return cell.supported ? "yes" : `\`${cell.code}\``;
        }),
      ];
      t.same(row[0].cells, expected, `${op}: Uniform, then ${columns.join(", ")}`);
    }
  },
);
