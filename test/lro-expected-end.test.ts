// A write's end noticed where it can be expected, not only where Azure's Retry-After says: Azure advertises 10 s, then
// 30 s, for a 30 s update, so polls at 10 s and 40 s saw its end 10 s late. The replica keeps Azure's own durations of
// the writes it saw end (their status documents' startTime to endTime) and polls once at the expected end, when that
// comes before Azure's next interval.
import t from "tap";
import { startSimulator, SimulatorControl } from "vmss-simulator";
import { pollAtMs, runLongRunning } from "../src/azure/long-running.ts";
import { azureDurationMs, WriteDurations } from "../src/azure/write-durations.ts";
import { createComputeClient, SimulatorCredential } from "../src/azure/client.ts";
import { loadConfig } from "../src/startup-config.ts";
import { fakePoller } from "./helpers/fake-poller.ts";

t.test("the next poll: Azure's interval, or the expected end when it is still to come and comes first", async (t) => {
  const cases: [string, number, number, number | undefined, number, number][] = [
    // what, from, delay, expected end, now, poll at
    ["no expectation: Azure's interval", 0, 3000, undefined, 0, 3000],
    ["the expected end before Azure's interval", 1000, 3000, 3150, 1000, 3150],
    ["the expected end after Azure's interval", 0, 1000, 3150, 0, 1000],
    ["the expected end passed: Azure's interval again", 3150, 3000, 3150, 3150, 6150],
    ["the expected end passed while waiting", 1000, 3000, 1500, 2000, 4000],
  ];
  for (const [what, from, delay, expected, now, at] of cases) t.equal(pollAtMs(from, delay, expected, now), at, what);
});

t.test(
  "a kind of write is expected to have ended at the longest of its last durations, a hundredth later",
  async (t) => {
    const d = new WriteDurations();
    t.equal(d.expectedMs("update"), undefined, "none before one was seen");
    d.record("update", 3000);
    t.equal(d.expectedMs("update"), 3030, "the one seen, × 1.01");
    d.record("update", 3100);
    d.record("update", 2900);
    t.equal(d.expectedMs("update"), 3131, "the longest, 3100, × 1.01: most writes have ended by then");
    t.equal(d.expectedMs("create"), undefined, "each kind on its own");
    for (let i = 0; i < 8; i++) d.record("update", 10_000);
    t.equal(d.expectedMs("update"), 10_100, "the last eight only");
    d.record("update", 0);
    d.record("update", Number.NaN);
    t.equal(d.expectedMs("update"), 10_100, "nothing that is not a duration");
  },
);

t.test("Azure's duration is read from a status document that says Succeeded, with its start and end", async (t) => {
  const doc = (o: object) => JSON.stringify({ name: "op", ...o });
  const start = "2026-12-02T10:00:00.0000000+00:00";
  t.equal(
    azureDurationMs(doc({ status: "Succeeded", startTime: start, endTime: "2026-12-02T10:00:30.5+00:00" })),
    30_500,
  );
  t.equal(azureDurationMs(doc({ status: "InProgress", startTime: start })), undefined);
  t.equal(azureDurationMs(doc({ status: "Failed", startTime: start, endTime: start })), undefined);
  t.equal(azureDurationMs("not json, with an endTime"), undefined);
  t.equal(azureDurationMs(undefined), undefined);
});

t.test("a write with an expectation is polled at its expected end, not after Azure's whole interval", async (t) => {
  const AZURE_INTERVAL_MS = 60_000;
  const EXPECTED_MS = 200;
  const polls: number[] = [];
  let acceptedAt = 0;
  const result = await runLongRunning(
    () => {
      acceptedAt = Date.now();
      return fakePoller(polls);
    },
    {
      defaultPollIntervalMs: AZURE_INTERVAL_MS,
      duration: { expectedMs: () => EXPECTED_MS, record: () => {} },
    },
  );
  t.equal(result, "ok");
  t.equal(polls.length, 1);
  // A timer never fires early; a loaded machine makes it late, never by most of a minute.
  t.ok(polls[0] - acceptedAt >= EXPECTED_MS, `not before the expected end (${polls[0] - acceptedAt} ms)`);
  t.ok(polls[0] - acceptedAt < AZURE_INTERVAL_MS / 2, `long before Azure's interval (${polls[0] - acceptedAt} ms)`);
});

t.test("the durations are Azure's, learned from the writes' status documents through the SDK", async (t) => {
  const sim = await startSimulator({ port: 0, timeScale: 1, writeDurationMs: 300, seed: false });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  await control.putScaleSet("demo-rg", "learned", { capacity: 1, loadBalanced: false });
  const account = loadConfig({ SIMULATOR_URL: sim.url, SIMULATOR_TIME_SCALE: "1" }).accounts[0];
  account.caPem = sim.caPem;
  const client = createComputeClient(account, new SimulatorCredential());
  const durations = new WriteDurations();
  for (let i = 0; i < 3; i++)
    await runLongRunning(
      () => client.virtualMachineScaleSets.update("demo-rg", "learned", { tags: { round: `${i}` } }),
      {
        defaultPollIntervalMs: 50,
        maxPollIntervalMs: 50,
        duration: durations.of("update"),
      },
    );
  const ended = (await control.operations()).filter((o) => o.status === "Succeeded" && o.endTime !== undefined);
  t.equal(ended.length, 3, "three updates ended");
  const azure = ended.map((o) => o.endTime! - o.startedAt).sort((a, b) => a - b);
  const expected = durations.expectedMs("update");
  t.ok(expected !== undefined, "an expectation");
  t.ok(
    Math.abs(expected! - Math.round(azure[2] * 1.01)) <= 2,
    `the longest of Azure's durations (${azure.join(", ")} ms), × 1.01: ${expected}`,
  );
});
