// The store calls' bounds share one timer (src/tasks/call-bounds.ts): a call that settles in time settles as it did,
// one that does not is rejected at its own bound, whichever order the bounds were set in, and calls that settled
// leave no timer holding the process.
import t from "tap";
import { CallBounds } from "../src/tasks/call-bounds.ts";

const never = new Promise<never>(() => {});
const late = (name: string) => () => new Error(`${name} late`);

t.test("a call settled in time keeps its value or its error", async (t) => {
  const bounds = new CallBounds();
  t.equal(await bounds.bound(Promise.resolve(7), performance.now() + 1000, late("a")), 7);
  await t.rejects(bounds.bound(Promise.reject(new Error("no")), performance.now() + 1000, late("b")), {
    message: "no",
  });
  t.equal(bounds.pending, 0);
});

t.test("each call past its bound is rejected at its own bound, the shorter first", async (t) => {
  const bounds = new CallBounds();
  const t0 = performance.now();
  const order: string[] = [];
  const at = (name: string, ms: number) =>
    bounds.bound(never, t0 + ms, late(name)).catch((e: Error) => {
      order.push(e.message);
      return performance.now() - t0;
    });
  // The longer bound first: the one timer is armed again for the shorter.
  const [slow, quick, settled] = await Promise.all([
    at("slow", 120),
    at("quick", 30),
    bounds.bound(new Promise((r) => setTimeout(() => r("in time"), 10)), t0 + 60, late("settled")),
  ]);
  t.same(order, ["quick late", "slow late"]);
  t.ok(quick >= 30 && quick < 120, `quick rejected at its bound (${quick.toFixed(0)} ms)`);
  t.ok(slow >= 120, `slow rejected at its bound (${slow.toFixed(0)} ms)`);
  t.equal(settled, "in time");
  t.equal(bounds.pending, 0);
});

t.test(
  "a bound already past rejects after the poll phase that follows, so an answer already there still wins",
  async (t) => {
    const bounds = new CallBounds();
    const answered = new Promise((r) => setImmediate(() => r("answered")));
    t.equal(await bounds.bound(answered, performance.now() - 1, late("x")), "answered");
  },
);

t.test("no calls in flight: its timer holds nothing", async (t) => {
  const bounds = new CallBounds();
  await bounds.bound(Promise.resolve(1), performance.now() + 60_000, late("a"));
  t.equal(bounds.holdsProcess, false, "the timer left armed does not keep the process alive");
  let answer = (_: unknown) => {};
  const p = bounds.bound(new Promise((r) => (answer = r)), performance.now() + 60_000, late("b"));
  t.equal(bounds.holdsProcess, true, "a call in flight does");
  answer(undefined);
  await p;
  t.equal(bounds.holdsProcess, false);
});
