// The pieces of the per-scale-set order that every store shares (src/tasks/ordering.ts). The rule itself is in the
// store contract suite (test/task-store-suite.ts) and, with real processes, in test/ordering-processes.test.ts.
import t from "tap";
import { scaleSetKey, waitingEntry, WAITING_PHASE } from "../src/tasks/ordering.ts";

t.test("keys ignore case, as ARM names do", async (t) => {
  t.equal(
    scaleSetKey({ subscriptionId: "S", resourceGroup: "Demo-RG", name: "Web-Prod-v001" }),
    scaleSetKey({ subscriptionId: "s", resourceGroup: "demo-rg", name: "web-prod-v001" }),
  );
  t.not(scaleSetKey({ subscriptionId: "s", resourceGroup: "a", name: "b" }), scaleSetKey({ subscriptionId: "s", resourceGroup: "b", name: "b" }));
});

t.test("the waiting line names each task ahead, by scale set", async (t) => {
  t.equal(waitingEntry([], 1), undefined, "nobody ahead: no line");
  const line = waitingEntry([{ taskId: "t-2", scaleSet: "s/rg/b" }, { taskId: "t-1", scaleSet: "s/rg/a" }], 42)!;
  t.equal(line.phase, WAITING_PHASE);
  t.equal(line.timeMs, 42);
  t.equal(line.status, "Waiting for task t-1 on scale set s/rg/a, task t-2 on scale set s/rg/b to finish: one operation at a time per scale set, in submission order");
});
