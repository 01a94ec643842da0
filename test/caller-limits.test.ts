// The per-caller limits' decision, on a hand-moved clock: a fixed window per caller from its first request, its
// own count per key, and Retry-After until the window ends.
import t from "tap";
import { CallerLimits } from "../src/api/caller-limits.ts";

t.test("within the limit, then refused until the caller's window ends", async (t) => {
  const limits = new CallerLimits(60_000, 0);
  for (let i = 0; i < 3; i++) t.equal(limits.take("read|ip:a", 3, 1_000), undefined, `request ${i + 1} of 3`);
  t.same(
    limits.take("read|ip:a", 3, 1_000),
    { retryAfterSeconds: 60 },
    "the 4th: back when the window that began at 1 s ends",
  );
  t.same(limits.take("read|ip:a", 3, 30_500), { retryAfterSeconds: 31 }, "rounded up, never 0");
  t.equal(limits.take("read|ip:b", 3, 30_500), undefined, "another caller has its own count");
  t.equal(limits.take("submit|ip:a", 1, 30_500), undefined, "and so has another kind");
  t.equal(limits.take("read|ip:a", 3, 61_000), undefined, "a new window");
});

t.test("windows that ended are swept out, at most once a window", async (t) => {
  const limits = new CallerLimits(1_000, 0);
  for (let i = 0; i < 100; i++) limits.take(`read|ip:${i}`, 10, 500);
  t.equal(limits.size, 100);
  limits.take("read|ip:late", 10, 1_600);
  t.equal(limits.size, 1, "only the caller whose window is open is kept");
});
