// Test fixture: a real simulator (HTTPS, port 0) on a clock the test moves by hand, seeded, at time factor 1 and with
// throttling off, and a control client for it; both are closed when the test ends. Nothing sleeps: refills, writes
// and probes advance only when the test moves its clock.
import type { Test } from "tap";
import { SimulatorControl, startSimulator, type RunningSimulator } from "vmss-simulator";

/** Where hand-moved clocks start. */
export const HAND_CLOCK_START = Date.parse("2026-03-01T12:00:00.000Z");

/** A simulator whose every "now" is `now()`, and its control client. */
export async function startHandClockSimulator(
  t: Test,
  now: () => number,
): Promise<{ sim: RunningSimulator; control: SimulatorControl }> {
  const sim = await startSimulator({ port: 0, seed: true, timeScale: 1, throttling: false, now });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  return { sim, control };
}
