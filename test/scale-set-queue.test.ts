import t from "tap";
import { ScaleSetQueue, scaleSetKey } from "../src/azure/scale-set-queue.ts";

const tick = () => new Promise((r) => setImmediate(r));

t.test("operations on one scale set run one at a time, in order", async (t) => {
  const q = new ScaleSetQueue();
  const log: string[] = [];
  const gates = [0, 1, 2].map(() => {
    let open!: () => void;
    return { promise: new Promise<void>((r) => (open = r)), open: () => open() };
  });
  const waits: number[] = [];
  const runs = [0, 1, 2].map((i) =>
    q.run("a", async () => {
      log.push(`start ${i}`);
      await gates[i].promise;
      log.push(`end ${i}`);
      return i;
    }, (ahead) => waits.push(ahead)),
  );
  await tick();
  t.same(log, ["start 0"], "only the first runs");
  t.same(waits, [1, 2], "the others were told how many are ahead");
  gates[1].open();
  await tick();
  t.same(log, ["start 0"], "the second waits for the first even when ready");
  gates[0].open();
  await runs[0];
  await tick();
  t.same(log, ["start 0", "end 0", "start 1", "end 1", "start 2"]);
  gates[2].open();
  t.same(await Promise.all(runs), [0, 1, 2]);
  t.equal(q.waiting.size, 0, "nothing left behind");
});

t.test("different scale sets run in parallel, and a failure releases the next", async (t) => {
  const q = new ScaleSetQueue();
  let running = 0;
  let peak = 0;
  const work = async () => {
    running++;
    peak = Math.max(peak, running);
    await tick();
    running--;
  };
  await Promise.all([q.run("a", work), q.run("b", work), q.run("c", work)]);
  t.equal(peak, 3);
  const failed = q.run("a", async () => {
    throw new Error("boom");
  });
  const next = q.run("a", async () => "ran");
  await t.rejects(failed, /boom/);
  t.equal(await next, "ran");
});

t.test("keys ignore case, as ARM names do", async (t) => {
  t.equal(
    scaleSetKey({ subscriptionId: "S", resourceGroup: "Demo-RG", name: "Web-Prod-v001" }),
    scaleSetKey({ subscriptionId: "s", resourceGroup: "demo-rg", name: "web-prod-v001" }),
  );
});
