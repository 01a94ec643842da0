// The baseline the service is measured against: a plain script making the same Azure calls with the real SDK, run
// as its own process so that its CPU time is its own. Prints one JSON line.
//
//   node bench/plain-sdk.ts resizes <simUrl> <caFile> <subscriptionId> <resourceGroup> <prefix> <n> <concurrency> [pollMs] [confirm]
//     For each of n scale sets <prefix>0..: read it, then resize it with If-Match and wait (polls and the final
//     GET included): what one uncontended resize task does. Reports CPU ms for the work (start-up excluded).
//     With pollMs, each write is polled every pollMs, as the service polls with LRO_MAX_POLL_INTERVAL_MS = pollMs;
//     without, as the SDK polls by itself (at once, then as Retry-After says: whole seconds). With `confirm`, the
//     VMs are then listed (with their instance views), as the service confirms a resize: what it reports is what
//     Azure shows, not what the write asked for; and the group's autoscale settings are listed with the first read
//     and with the last, as the service reads them to keep a setting's bounds and the capacity agreeing.
//   node bench/plain-sdk.ts burst <simUrl> <caFile> <subscriptionId> <resourceGroup> <name> <k>
//     k resizes of one scale set sent at once (capacities alternating 2, 1, …), as a script without a queue would:
//     reports how many succeeded and how many Azure refused.
import { readFileSync } from "node:fs";
import { createDefaultHttpClient, createPipelineRequest } from "@azure/core-rest-pipeline";
import { setTimeout as sleep } from "node:timers/promises";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config/accounts.ts";

const [mode, url, caFile, subscriptionId, resourceGroup, name, nText, concurrencyText, pollMsText, confirmText] =
  process.argv.slice(2);
const client = createComputeClient(simulatorDemoAccount({ url, caPem: readFileSync(caFile, "utf8"), subscriptionId }));
const n = Number(nText);
/** The group's autoscale settings (Microsoft.Insights, 2022-10-01), through the same client's pipeline. */
const httpClient = createDefaultHttpClient();
const listAutoscaleSettings = () =>
  client.pipeline.sendRequest(
    httpClient,
    createPipelineRequest({
      url: `${url}/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Insights/autoscalesettings?api-version=2022-10-01`,
      method: "GET",
    }),
  );

function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number }).statusCode;
}

if (mode === "resizes") {
  const concurrency = Number(concurrencyText);
  const pollMs = pollMsText === undefined || pollMsText === "" ? undefined : Number(pollMsText);
  const confirm = confirmText === "confirm";
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  let failed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const vmss = await client.virtualMachineScaleSets.get(resourceGroup, `${name}${i}`);
        if (confirm) await listAutoscaleSettings();
        const update = { sku: { ...vmss.sku, capacity: (vmss.sku?.capacity ?? 1) + 1 } };
        try {
          if (pollMs === undefined)
            await client.virtualMachineScaleSets.beginUpdateAndWait(resourceGroup, `${name}${i}`, update, {
              ifMatch: vmss.etag,
            });
          else {
            const poller = client.virtualMachineScaleSets.update(resourceGroup, `${name}${i}`, update, {
              ifMatch: vmss.etag,
            });
            await poller.submitted();
            while (!poller.isDone) {
              await sleep(pollMs);
              await poller.poll();
            }
            if (poller.operationState?.status !== "succeeded")
              throw new Error(`resize ${name}${i}: ${poller.operationState?.status}`);
          }
          if (confirm) {
            for await (const vm of client.virtualMachineScaleSetVMs.list(resourceGroup, `${name}${i}`, {
              expand: "instanceView",
            }))
              void vm;
            await listAutoscaleSettings();
          }
        } catch {
          failed++;
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ n, failed, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: Date.now() - t0 }));
} else if (mode === "burst") {
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      client.virtualMachineScaleSets.beginUpdateAndWait(resourceGroup, name, {
        sku: { capacity: i % 2 === 0 ? 2 : 1 },
      }),
    ),
  );
  const refused = results.filter((r) => r.status === "rejected" && statusOf(r.reason) === 409).length;
  const otherFailures = results.filter((r) => r.status === "rejected" && statusOf(r.reason) !== 409).length;
  console.log(
    JSON.stringify({ n, succeeded: results.filter((r) => r.status === "fulfilled").length, refused, otherFailures }),
  );
} else {
  throw new Error(`unknown mode ${mode}`);
}
