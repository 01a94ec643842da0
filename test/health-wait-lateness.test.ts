// How late a create notices that its instances became healthy behind the load balancer. The simulator's probe
// reports a VM healthy 30 Azure-seconds after it runs; the demo load balancer's probe answers every 5 s and needs 2
// answers, so health can first be reported 10 s after a VM runs and changes at most once every 5 s after that. Read at
// that pace (src/azure/health-read.ts) while the wait's share of the read budget lasts, health is noticed within one
// probe interval (×1.2 jitter): 6 Azure-seconds. Read every 20-28 s from the wait's start (a quarter of the scale
// set's 12 GETs a minute), as the busy pace does, it was noticed 10-26 s late.
import t from "tap";
import { bakeImage, convertServerGroupCommandToDeployConfiguration, deckCommand } from "../testkit/deck.ts";
import { newStage, Orca } from "../testkit/orca.ts";
import { startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

// 0.1: an Azure-second is 100 ms, the probe's 30 s are 3 s.
const TIME_SCALE = 0.1;
const env = await startTestEnv({
  writeDurationMs: 300,
  timeScale: TIME_SCALE,
  // The retry deadline and the longest wait at their defaults' scale: the busy pace (20 Azure-seconds) is not capped.
  env: { RETRY_MAX_DELAY_MS: "60000", RETRY_DEADLINE_MS: "120000" },
});
t.teardown(() => env.close());
const orca = new Orca(env.api, { pollMs: 20 });

/** Noticed within the probe interval with its jitter (6 Azure-seconds), and 3 more for a loaded machine's replies. */
const WITHIN_AZURE_SECONDS = 9;

t.test("a create notices its instances' health within the probe's interval of it", async (t) => {
  const { healthProbeSeconds } = (await env.simControl("GET", "/_sim/config")).body as { healthProbeSeconds: number };
  t.equal(healthProbeSeconds, 30, "the simulator's probe: 30 Azure-seconds from running to healthy");
  const application = "late";
  const stage = newStage(
    convertServerGroupCommandToDeployConfiguration(deckCommand(application, { sku: { capacity: 2 } })),
  );
  await orca.determineSourceServerGroup(stage);
  await orca.deployStage(stage, { bake: await bakeImage(env.sim, application) });
  const name = stage.context["deploy.server.groups"].eastus[0] as string;

  const vms = ((await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.vms ?? []) as Json[];
  const ran = vms.map((vm) => {
    const statuses = (vm.properties?.instanceView?.statuses ?? []) as Json[];
    return Date.parse(statuses.find((s) => String(s.code).startsWith("ProvisioningState/"))?.time ?? "");
  });
  t.ok(ran.length === 2 && ran.every(Number.isFinite), `the VMs' start is read: ${JSON.stringify(ran)}`);
  const healthyAtMs = Math.max(...ran) + healthProbeSeconds * 1000 * TIME_SCALE;

  const reads = (await env.calls())
    .filter((c) => c.method === "GET" && new RegExp(`/virtualMachineScaleSets/${name}/virtualMachines$`).test(c.path))
    .map((c) => c.time);
  const noticedAtMs = reads.find((at) => at >= healthyAtMs);
  t.ok(noticedAtMs !== undefined, "a read after the instances became healthy");
  const lateAzureSeconds = (noticedAtMs! - healthyAtMs) / 1000 / TIME_SCALE;
  const offsets = reads.map((at) => ((at - Math.max(...ran)) / 1000 / TIME_SCALE).toFixed(1));
  t.ok(
    lateAzureSeconds <= WITHIN_AZURE_SECONDS,
    `noticed ${lateAzureSeconds.toFixed(1)} Azure-seconds after health (at most ${WITHIN_AZURE_SECONDS}); the VM reads, Azure-seconds after the VMs ran: ${offsets.join(", ")}`,
  );
});
