// What a dry run lists after the first write (src/operations/later-writes.ts): decided by the first write and the
// scale set's kind, each with what decides it; nothing listed that the run would not do after that write.
import t from "tap";
import type { ScaleSetSnapshot, WriteStep } from "../src/azure/vmss-gateway.ts";
import { laterWrites } from "../src/operations/later-writes.ts";

const set = (vmss: ScaleSetSnapshot["vmss"], extra: Partial<ScaleSetSnapshot> = {}): ScaleSetSnapshot => ({
  vmss,
  etag: '"1"',
  ...extra,
});
const manual = set({ location: "eastus", upgradePolicy: { mode: "Manual" } });
const rolling = set({ location: "eastus", upgradePolicy: { mode: "Rolling" } });
const flexible = set({ location: "eastus", orchestrationMode: "Flexible" });
const removePools: WriteStep = {
  kind: "update",
  summary: "remove 1 backend pool(s)",
  patch: { virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: [] } } },
};
const scaleToZero: WriteStep = {
  kind: "update",
  summary: "no backend pools: scale 2 → 0",
  patch: { sku: { capacity: 0 } },
};
const kinds = (later: { kind: string }[]) => later.map((l) => l.kind);

t.test("a disable: its rollout by the scale set's kind, after a change of the model only", async (t) => {
  t.same(kinds(laterWrites("disableServerGroup", removePools, manual)), ["manualUpgrade"]);
  t.same(kinds(laterWrites("disableServerGroup", removePools, rolling)), ["wait"], "Azure rolls it out");
  t.same(kinds(laterWrites("disableServerGroup", removePools, flexible)), ["nicPools"], "each VM's NIC");
  t.same(kinds(laterWrites("disableServerGroup", scaleToZero, manual)), ["wait"], "a capacity: Azure's instances");
  const upgrade: WriteStep = { kind: "manualUpgrade", summary: "roll out", instanceIds: ["0"] };
  t.same(laterWrites("disableServerGroup", upgrade, manual), [], "the rollout itself is the last write");
  const suspend: WriteStep = { kind: "repairs", summary: "suspend automatic repairs", action: "Suspend" };
  t.same(
    kinds(laterWrites("disableServerGroup", suspend, set(manual.vmss, { repairs: "Running" }))),
    ["update", "manualUpgrade", "repairs"],
    "repairs suspended first: the disable's own writes, then repairs resumed",
  );
});

t.test("each later write says what decides it", async (t) => {
  const remove: WriteStep = { kind: "deleteInstances", summary: "delete instance(s) 0", instanceIds: ["0"] };
  const later = laterWrites("terminateInstances", remove, manual);
  t.match(later, [{ kind: "wait" }, { kind: "update", what: /restore the capacity/ }, { kind: "wait" }]);
  for (const l of later) t.ok(l.decidedBy.length > 10, `${l.kind}: ${l.decidedBy}`);
  t.match(
    kinds(laterWrites("rollingUpgrade", { kind: "update", summary: "apply the new model", patch: {} }, manual)),
    ["update", "wait", "deleteInstances", "update"],
    "a rolling upgrade's batches",
  );
});
