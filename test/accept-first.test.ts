// Accept first: task work waits its turn while submissions are being accepted, goes on once they are quiet, and
// never waits longer than MAX_WAIT_MS. Decided on a hand-moved clock: nothing here depends on the machine's speed.
import t from "tap";
import { AcceptFirst, type AcceptFirstClock, MAX_WAIT_MS, QUIET_MS } from "../src/tasks/accept-first.ts";

/** A clock that moves only when told, firing the timers that fall due. */
function handClock(): AcceptFirstClock & { advance(ms: number): Promise<void> } {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => now,
    after(ms, fn) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((x) => x !== timer));
    },
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.fn();
        await Promise.resolve();
      }
      now = until;
      // Let the promises the timers resolved run their continuations.
      await new Promise((r) => setImmediate(r));
    },
  };
}

/** Whether a turn has been given, as the test sees it after the microtasks have run. */
function track(turn: Promise<void> | undefined): { given: boolean } {
  const state = { given: turn === undefined };
  void turn?.then(() => (state.given = true));
  return state;
}

t.test("with nothing being accepted, a step goes on at once, without a promise", async (t) => {
  const gate = new AcceptFirst(handClock());
  t.equal(gate.busy, false);
  t.equal(gate.turn(), undefined);
});

t.test("a step waits while a submission is being accepted, and goes on once none has come for QUIET_MS", async (t) => {
  const clock = handClock();
  const gate = new AcceptFirst(clock);
  const answered = gate.accepting();
  const step = track(gate.turn());
  await clock.advance(MAX_WAIT_MS / 2);
  t.equal(step.given, false, "held while the submission is not answered");
  answered();
  const second = gate.accepting();
  second();
  await clock.advance(QUIET_MS - 1);
  t.equal(step.given, false, "held during the quiet time after the last answer");
  await clock.advance(1);
  t.equal(step.given, true, "given once the submissions have been quiet for QUIET_MS");
  t.equal(gate.waiting, 0);
  t.equal(gate.turn(), undefined, "and the next step goes on at once");
});

t.test(
  "a steady stream of submissions slows task work, never stops it: no step waits longer than MAX_WAIT_MS",
  async (t) => {
    const clock = handClock();
    const gate = new AcceptFirst(clock);
    let answered = gate.accepting();
    const first = track(gate.turn());
    await clock.advance(100);
    const second = track(gate.turn());
    // A new submission every millisecond, each answered before the next: the quiet time never comes.
    for (let ms = 100; ms < MAX_WAIT_MS; ms++) {
      answered();
      answered = gate.accepting();
      await clock.advance(1);
    }
    t.equal(first.given, true, "the oldest step goes after MAX_WAIT_MS");
    t.equal(second.given, false, "a younger one still waits");
    for (let ms = 0; ms < 100; ms++) {
      answered();
      answered = gate.accepting();
      await clock.advance(1);
    }
    t.equal(second.given, true, "its turn comes MAX_WAIT_MS after it asked");
    answered();
  },
);

t.test("an answer given twice counts once", async (t) => {
  const clock = handClock();
  const gate = new AcceptFirst(clock);
  const a = gate.accepting();
  const b = gate.accepting();
  a();
  a();
  t.equal(gate.busy, true, "the other submission is still being accepted");
  b();
  await clock.advance(QUIET_MS);
  t.equal(gate.busy, false);
});
