// What a create's health wait expects (src/operations/create/health-expectation.ts): the probe's pace from the load
// balancer's read body or the model's Application Health extension, and the VMs' start from their instance views.
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import {
  balancerProbePace,
  extensionProbePace,
  healthExpectation,
} from "../src/operations/create/health-expectation.ts";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";

const vm = (id: string, time?: string, power = "PowerState/running"): VirtualMachineScaleSetVM =>
  ({
    instanceId: id,
    provisioningState: "Succeeded",
    instanceView: {
      statuses: [{ code: "ProvisioningState/succeeded", ...(time ? { time: new Date(time) } : {}) }, { code: power }],
    },
  }) as VirtualMachineScaleSetVM;

t.test("a load balancer's quickest probe", async (t) => {
  const probe = (p: Record<string, unknown>) => ({ name: "p", properties: p });
  const cases: [string, unknown, ReturnType<typeof balancerProbePace>][] = [
    ["no probes", { properties: {} }, undefined],
    ["not a read body", undefined, undefined],
    [
      "5 s × 2",
      { properties: { probes: [probe({ intervalInSeconds: 5, numberOfProbes: 2 })] } },
      { intervalSeconds: 5, probes: 2 },
    ],
    [
      "the quickest of two",
      {
        properties: {
          probes: [
            probe({ intervalInSeconds: 15, numberOfProbes: 2 }),
            probe({ intervalInSeconds: 5, probeThreshold: 3 }),
          ],
        },
      },
      { intervalSeconds: 5, probes: 3 },
    ],
    [
      "no count: one answer",
      { properties: { probes: [probe({ intervalInSeconds: 10 })] } },
      { intervalSeconds: 10, probes: 1 },
    ],
    ["no interval: unknown", { properties: { probes: [probe({ numberOfProbes: 2 })] } }, undefined],
  ];
  for (const [name, body, want] of cases) t.same(balancerProbePace(body), want, name);
});

t.test("the Application Health extension in the model", async (t) => {
  const snapshot = (extensions: unknown[]) =>
    ({ vmss: { virtualMachineProfile: { extensionProfile: { extensions } } } }) as unknown as ScaleSetSnapshot;
  t.same(extensionProbePace(snapshot([])), undefined, "none");
  t.same(
    extensionProbePace(snapshot([{ typePropertiesType: "ApplicationHealthLinux", settings: { port: 80 } }])),
    { intervalSeconds: 5, probes: 1 },
    "Azure's defaults",
  );
  t.same(
    extensionProbePace(
      snapshot([
        { typePropertiesType: "ApplicationHealthWindows", settings: { intervalInSeconds: 10, numberOfProbes: 3 } },
      ]),
    ),
    { intervalSeconds: 10, probes: 3 },
  );
});

t.test("the VMs' start: the last of those waited on, or unknown", async (t) => {
  const pace = { intervalSeconds: 5, probes: 2 };
  const a = "2026-12-02T10:00:00Z";
  const b = "2026-12-02T10:00:07Z";
  t.same(healthExpectation([vm("0", a), vm("1", b)], [pace, undefined]), {
    runningSinceMs: Date.parse(b),
    firstHealthSeconds: 10,
    probeIntervalSeconds: 5,
  });
  t.same(
    healthExpectation([vm("0", a)], [pace, { intervalSeconds: 5, probes: 1 }])?.firstHealthSeconds,
    5,
    "the quicker probe",
  );
  t.equal(healthExpectation([vm("0", a)], [undefined, undefined]), undefined, "no probe known");
  t.equal(healthExpectation([vm("0", a), vm("1")], [pace]), undefined, "a VM without a time");
  t.equal(healthExpectation([vm("0", a, "PowerState/starting")], [pace]), undefined, "a VM not running yet");
  t.equal(healthExpectation([], [pace]), undefined, "nothing waited on");
});
