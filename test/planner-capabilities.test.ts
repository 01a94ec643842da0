// A planner's capabilities are fields: read once from what the operation's file wrote (plannerOf), carried field by
// field through the decorators (the kinds table, the repairs suspension), so that none is lost, even from a planner
// written as a class, and a decorator's release runs after the planner's own instead of replacing it.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import t from "tap";
import { MAX_WRITES_PER_ATTEMPT, plannerOf, type PlannedStep } from "../src/azure/planner.ts";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import { REPAIRS_WRITES, TAG_REPAIRS_SUSPENDED_BY } from "../src/operations/repairs-suspension.ts";
import { kindGuard } from "../src/operations/scale-set-kinds.ts";

class ClassPlanner {
  readsInstances = false;
  maxWrites = 9;
  acceptsStopped = true;
  undone = false;
  plan(): PlannedStep {
    return { kind: "done", summary: "nothing to do" };
  }
  result(): number {
    return 1;
  }
  memory(): unknown {
    return { learned: this.maxWrites };
  }
  release(): PlannedStep {
    return this.undone ? { kind: "done", summary: "undone" } : { kind: "delete", summary: "undo our own change" };
  }
}

const vmss: VirtualMachineScaleSet = {
  location: "eastus",
  sku: { capacity: 1 },
  tags: { [TAG_REPAIRS_SUSPENDED_BY]: "t1" },
};
const snapshot: ScaleSetSnapshot = { vmss, etag: '"1"', vms: [], repairs: "Suspended" };

t.test(
  "a planner written as a class keeps every capability through the kinds table and the repairs bracket",
  async (t) => {
    const spec = new ClassPlanner();
    const planner = kindGuard("disableServerGroup", plannerOf(spec), { name: "web-v001" }, "t1");
    t.equal(planner.maxWrites, 9 + REPAIRS_WRITES, "its batch size, with the bracket's writes");
    t.equal(planner.acceptsStopped, true);
    t.equal(planner.readsInstances, true, "the bracket reads the VMs");
    t.same(planner.memory?.(), { learned: 9 }, "its memory, its own `this`");
    t.equal(planner.createWhenMissing, undefined, "a capability it lacks is explicitly absent");
    t.match(planner.release?.(snapshot), { kind: "delete" }, "its own release first");
    spec.undone = true;
    t.match(planner.release?.(snapshot), { kind: "repairs", action: "Resume" }, "then the bracket's: repairs resumed");
  },
);

t.test("a planner that says nothing of its batch size may make the harness's usual number of writes", async (t) => {
  const planner = plannerOf({
    readsInstances: false,
    plan: () => ({ kind: "done", summary: "x" }),
    result: () => 0,
  });
  t.equal(planner.maxWrites, MAX_WRITES_PER_ATTEMPT);
  t.equal(planner.acceptsStopped, false);
  t.equal(planner.release, undefined);
});
