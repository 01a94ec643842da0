// The rolling upgrade's pure planner, table-driven: no clock, no server. Each step is what the operation does next
// on one read. The order of deletion follows Cluster API Provider Azure (kubernetes-sigs/cluster-api-provider-azure
// at 69ec3a4, azure/scope/strategies/machinepool_deployments/machinepool_deployment_strategy.go): Surge rounds up and
// maxUnavailable rounds down (l.92-112), failed machines first (l.208-212), unready out-of-date machines while
// over-provisioned (l.238-248), then out-of-date ready ones (l.288-300), the disruption budget
// ready - desired + maxUnavailable (l.180-186), in-place replacement within it (l.330-350), Oldest/Newest (l.441-455).
import t from "tap";
import {
  batchPosition,
  orderForDelete,
  planUpgradeStep,
  resolveBudget,
  type UpgradeInstance,
  type UpgradeStep,
} from "../src/operations/rolling-upgrade-plan.ts";

/** "o" out of date and ready, "O" out of date, not ready, "n" new and ready, "N" new not ready, "f" failed, "d" deleting. */
function fleet(spec: string): UpgradeInstance[] {
  return [...spec].map((c, i) => ({
    id: String(i),
    createdMs: 1000 * i,
    state: c === "f" ? "Failed" : c === "d" ? "Deleting" : c === "N" ? "Creating" : "Succeeded",
    latestModel: c === "n" || c === "N" || c === "f",
    ready: c === "o" || c === "n",
  }));
}

const plan = (
  desired: number,
  spec: string,
  surge = 2,
  unavailable = 0,
  deletePolicy: "Oldest" | "Newest" = "Oldest",
): UpgradeStep => planUpgradeStep({ desired, budget: { surge, unavailable }, deletePolicy, instances: fleet(spec) });

t.test("budgets: whole numbers as given, percentages of desired, surge rounded up and unavailable down", async (t) => {
  t.equal(resolveBudget(2, 10, "up"), 2);
  t.equal(resolveBudget("25%", 10, "up"), 3);
  t.equal(resolveBudget("25%", 10, "down"), 2);
  t.equal(resolveBudget("1%", 10, "up"), 1, "any surge percentage of a non-empty set is at least one instance");
  t.equal(resolveBudget("1%", 10, "down"), 0);
  t.equal(resolveBudget("100%", 7, "down"), 7);
});

t.test("maxSurge 2, maxUnavailable 0: surge, wait for the replacements, delete two old, again", async (t) => {
  t.same(plan(10, "oooooooooo"), { kind: "scale", capacity: 12 }, "at the desired count: surge 2");
  t.same(
    plan(10, "ooooooooooNN"),
    { kind: "wait", why: "replacementsNotReady" },
    "replacements not ready: no old instance goes",
  );
  t.same(
    plan(10, "oooooooooonN"),
    { kind: "delete", ids: ["0"], why: "replaced", readyAfter: 10 },
    "one replacement ready: one old instance may go",
  );
  t.same(
    plan(10, "oooooooooonn"),
    { kind: "delete", ids: ["0", "1"], why: "replaced", readyAfter: 10 },
    "both ready: the two oldest go, 10 stay ready",
  );
  t.same(plan(10, "oooooooonn"), { kind: "scale", capacity: 12 }, "back at 10: the next batch");
  t.same(plan(10, "nnnnnnnnnn"), { kind: "done" });
});

t.test("the disruption budget counts every ready instance: 11 ready of desired 10 lets one old go", async (t) => {
  const instances = fleet("oooooooooonn");
  instances[11].ready = false; // running, not yet healthy in the load balancer's pool
  t.same(planUpgradeStep({ desired: 10, budget: { surge: 2, unavailable: 0 }, deletePolicy: "Oldest", instances }), {
    kind: "delete",
    ids: ["0"],
    why: "replaced",
    readyAfter: 10,
  });
});

t.test("a read taken after a surge was accepted never surges again", async (t) => {
  // Azure applies a write at acceptance: the model is 12 and two VMs are Creating as soon as the surge is accepted.
  const step = plan(10, "ooooooooooNN");
  t.not(step.kind, "scale");
  t.same(plan(10, "oooooooooo" + "NN"), step, "same read, same step");
});

t.test("failed instances go first, in delete-policy order, before anything else", async (t) => {
  t.same(plan(10, "ooooooooooff"), { kind: "delete", ids: ["10", "11"], why: "failed", readyAfter: 10 });
  t.same(plan(10, "ooooooooooff", 2, 0, "Newest"), {
    kind: "delete",
    ids: ["11", "10"],
    why: "failed",
    readyAfter: 10,
  });
  t.same(plan(3, "odn"), { kind: "wait", why: "deleting" }, "an instance Azure is deleting already: wait for it");
});

t.test("over-provisioned: unready out-of-date instances go before ready ones, and need no budget", async (t) => {
  t.same(
    plan(3, "oOoNN"),
    { kind: "delete", ids: ["1"], why: "replaced", readyAfter: 2 },
    "the unready old one goes; the ready old ones stay (budget 0)",
  );
  t.same(plan(3, "oOonn"), { kind: "delete", ids: ["1", "0"], why: "replaced", readyAfter: 3 });
});

t.test("deletePolicy Oldest or Newest picks among the out-of-date ready instances", async (t) => {
  t.same(plan(4, "oooonn", 2, 0, "Oldest"), { kind: "delete", ids: ["0", "1"], why: "replaced", readyAfter: 4 });
  t.same(plan(4, "oooonn", 2, 0, "Newest"), { kind: "delete", ids: ["3", "2"], why: "replaced", readyAfter: 4 });
  const sameTime = fleet("oooo").map((vm) => ({ ...vm, createdMs: 0 }));
  t.same(
    orderForDelete(sameTime, "Oldest").map((vm) => vm.id),
    ["0", "1", "2", "3"],
    "ties: lowest instance id first",
  );
});

t.test("maxSurge 0, maxUnavailable 1: replace in place, one at a time, refilling to desired", async (t) => {
  t.same(plan(3, "ooo", 0, 1), { kind: "delete", ids: ["0"], why: "replaced", readyAfter: 2 });
  t.same(plan(3, "oo", 0, 1), { kind: "scale", capacity: 3 }, "one short: back to desired with the new model");
  t.same(
    plan(3, "ooN", 0, 1),
    { kind: "wait", why: "replacementsNotReady" },
    "2 ready = desired - unavailable: nothing more may go",
  );
  t.same(plan(3, "oon", 0, 1), { kind: "delete", ids: ["0"], why: "replaced", readyAfter: 2 });
});

t.test(
  "surge and unavailable together: old instances go as soon as the surge is accepted, within the budget",
  async (t) => {
    t.same(plan(4, "ooooNN", 2, 1), { kind: "delete", ids: ["0"], why: "replaced", readyAfter: 3 });
  },
);

t.test("the last batch surges only as many as are left, and extra up-to-date instances are removed", async (t) => {
  t.same(plan(3, "onn"), { kind: "scale", capacity: 4 }, "one old left: surge 1, not 2");
  t.same(plan(3, "nnnn"), { kind: "delete", ids: ["0"], why: "overProvisioned", readyAfter: 3 });
});

t.test("batch positions follow from what is left out of date, the same after a restart", async (t) => {
  const budget = { surge: 2, unavailable: 0 };
  t.same(batchPosition(10, 10, budget), { batch: 1, batches: 5 });
  t.same(batchPosition(10, 8, budget), { batch: 2, batches: 5 });
  t.same(batchPosition(10, 1, budget), { batch: 5, batches: 5 });
  t.same(batchPosition(10, 0, budget), { batch: 5, batches: 5 });
  t.same(batchPosition(7, 7, { surge: 0, unavailable: 2 }), { batch: 1, batches: 4 });
});
