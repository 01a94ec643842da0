// The read-budget figures the busy wait is paced by: Azure's, or the simulator's when it is all the service talks to.
import t from "tap";
import { loadConfig } from "../src/startup-config.ts";
import { busyReadIntervalMs } from "../src/azure/retry-policy.ts";

// A real account needs access control, or TRUSTED_NETWORK=true: these tests are about the read budget only.
const realAccount = JSON.stringify([
  { name: "prod", subscriptionId: "11111111-2222-3333-4444-555555555555", credential: "default" },
]);

t.test("against Azure: a quarter of 12 reads a minute, one re-read every 20 s", async (t) => {
  const c = loadConfig({ SIMULATOR: "off", ACCOUNTS: realAccount, TRUSTED_NETWORK: "true" });
  t.same(
    { share: c.retry.busyReadShare, perMinute: c.retry.scaleSetReadsPerMinute, burst: c.retry.scaleSetReadBurst },
    { share: 0.25, perMinute: 12, burst: 36 },
  );
  t.equal(busyReadIntervalMs(c.retry), 20_000);
});

t.test("with a real account next to the simulator's, Azure's figures still hold", async (t) => {
  t.equal(loadConfig({ ACCOUNTS: realAccount, TRUSTED_NETWORK: "true" }).retry.scaleSetReadsPerMinute, 12);
});

t.test("against the simulator alone, the refill follows its time factor, as its own buckets do", async (t) => {
  t.equal(loadConfig({}).retry.scaleSetReadsPerMinute, 120, "default time factor 0.1");
  t.equal(busyReadIntervalMs(loadConfig({}).retry), 2000);
  t.equal(loadConfig({ SIMULATOR_TIME_SCALE: "0.001" }).retry.scaleSetReadsPerMinute, 12_000);
  t.equal(
    loadConfig({ AZURE_SCALE_SET_READS_PER_MINUTE: "30" }).retry.scaleSetReadsPerMinute,
    30,
    "an explicit figure wins",
  );
  t.equal(
    loadConfig({
      RETRY_BUSY_READ_SHARE_PERCENT: "50",
      SIMULATOR: "off",
      ACCOUNTS: realAccount,
      TRUSTED_NETWORK: "true",
    }).retry.busyReadShare,
    0.5,
  );
});
