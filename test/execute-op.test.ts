// executeOp against a scripted scale set whose reads are recorded Azure responses (test/fixtures/azure-recordings):
// busy, Failed, Canceled, a bug in a planner, and the read budget, without a network or a clock.
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { LongRunningOperationError } from "../src/azure/arm-failure.ts";
import { executeOp } from "../src/azure/execute-op.ts";
import { GaveUpError } from "../src/azure/harness/failures.ts";
import type { ScaleSetPlanner } from "../src/azure/planner.ts";
import {
  guardLabel,
  guardOf,
  type ScaleSetGateway,
  type ScaleSetSnapshot,
  type WriteStep,
} from "../src/azure/vmss-gateway.ts";
import type { RetryConfig } from "../src/azure/retry-policy.ts";
import { resizeServerGroup } from "../src/operations/resize-server-group.ts";
import type { ServerGroupResult } from "../src/operations/server-group-state.ts";
import { recordedScaleSet, recordedSnapshot } from "./helpers/recorded-shapes.ts";
import type { Json } from "../testkit/json.ts";

const retry: RetryConfig = {
  maxAttempts: 6,
  deadlineMs: 3_600_000,
  conflictBaseDelayMs: 200,
  transientBaseDelayMs: 1000,
  busyPollIntervalMs: 500,
  throttleDefaultDelayMs: 5000,
  maxDelayMs: 60_000,
  busyReadShare: 0.25,
  scaleSetReadsPerMinute: 12,
  scaleSetReadBurst: 36,
  maxRedrives: 2,
};

const ref = {
  account: "demo",
  subscriptionId: "00000000-0000-0000-0000-000000000000",
  resourceGroup: "rgname",
  name: "virtualmachinescaleset16842a5e",
  region: "eastus",
};

/**
 * A scale set that answers from a script: `reads` are what successive GETs return (the last repeats), `vms` what
 * the VM list returns, `onWrite` decides what a write does (change the script, or throw as Azure would).
 */
class ScriptedGateway implements ScaleSetGateway {
  readonly ref = ref;
  reads: ScaleSetSnapshot[];
  vms: VirtualMachineScaleSetVM[];
  readonly log: string[] = [];
  readonly writes: { step: WriteStep; ifMatch: string | undefined }[] = [];
  onWrite: (step: WriteStep, n: number) => void = () => {};
  constructor(reads: ScaleSetSnapshot[], vms: VirtualMachineScaleSetVM[] = reads[0].vms ?? []) {
    this.reads = reads;
    this.vms = vms;
  }
  read() {
    this.log.push("GET");
    const next = this.reads.length > 1 ? this.reads.shift()! : this.reads[0];
    return Promise.resolve({
      vmss: structuredClone(next.vmss),
      etag: next.etag,
      ...(next.remainingReads !== undefined ? { remainingReads: next.remainingReads } : {}),
    });
  }
  async withInstances(snapshot: ScaleSetSnapshot) {
    return { ...snapshot, vms: await this.listInstances() };
  }
  listInstances() {
    this.log.push("LIST");
    return Promise.resolve(structuredClone(this.vms));
  }
  write(step: WriteStep, ifMatch: string | undefined) {
    this.log.push(`WRITE ${step.kind}`);
    this.writes.push({ step, ifMatch });
    this.onWrite(step, this.writes.length);
    return Promise.resolve(undefined);
  }
  async resume() {}
}

function run<R>(gateway: ScriptedGateway, planner: ScaleSetPlanner<R>, waits: number[] = []) {
  const history: string[] = [];
  let now = 0;
  const promise = executeOp({
    gateway,
    planner,
    retry,
    lroPollIntervalMs: 1000,
    log: (line) => history.push(line),
    random: () => 0.5,
    now: () => now,
    wait: (ms) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  });
  return { promise, history, waits };
}

/** The min and max a resize with min 0, max 10 records: with them, a scale set at the desired capacity needs no write. */
const RECORDED = { "vmss-ops.min": "0", "vmss-ops.max": "10" };
const snap = (vmss: Parameters<typeof recordedSnapshot>[0], vms: string[], etag?: string) =>
  recordedSnapshot({ tags: RECORDED, ...vmss }, vms, etag);
const recorded = (file: string, index: number) => recordedScaleSet(file, index, { tags: RECORDED });

const resizeTo = (desired: number) =>
  resizeServerGroup.planner(
    { credentials: "demo", region: "eastus", serverGroupName: ref.name, capacity: { min: 0, max: 10, desired } },
    ref,
  );

t.test(
  "a recorded update in flight (Updating, ETag already new) is waited out, then confirmed on the VM list",
  async (t) => {
    // update[12]: the GET during the PATCH shows the new model, "Updating", ETag "5"; update[13]: Succeeded, "5".
    const during = recorded("vmss-update-2024-11-01", 12);
    const after = recorded("vmss-update-2024-11-01", 13);
    const gw = new ScriptedGateway(
      [
        { vmss: during, etag: during.etag, remainingReads: 30 },
        { vmss: after, etag: after.etag },
      ],
      snap({}, ["Succeeded", "Succeeded"]).vms,
    );
    const { promise, history, waits } = run(gw, resizeTo(2));
    const result = await promise;
    t.same(gw.writes, [], "nothing to change once the other write ended");
    t.same(
      gw.log,
      ["GET", "GET", "LIST"],
      "the busy re-read is the scale set alone; the VMs are listed once, to confirm",
    );
    t.same(
      waits,
      [24_000],
      "one re-read, at least a quarter of the 12/min refill apart (20 s, jitter only lengthens it)",
    );
    t.match(history.join("\n"), /is Updating \(another write in flight\); waiting/);
    t.equal(result.capacity.desired, 2);
    t.equal(result.instanceCount, 2);
    t.equal(result.confirmed, undefined);
  },
);

t.test("re-reads slow down when Azure reports the read budget nearly spent", async (t) => {
  const during = recorded("vmss-update-2024-11-01", 12);
  const after = recorded("vmss-update-2024-11-01", 13);
  const gw = new ScriptedGateway(
    [
      { vmss: during, etag: during.etag, remainingReads: 2 },
      { vmss: during, etag: during.etag, remainingReads: 1 },
      { vmss: after, etag: after.etag },
    ],
    snap({}, ["Succeeded", "Succeeded"]).vms,
  );
  const { promise, waits } = run(gw, resizeTo(2));
  await promise;
  // 2 left (of a burst of 36, our share 9): 8 reads short → 40 s; then 1 left → 45 s; jitter (×1.2 here) on top.
  t.same(waits, [48_000, 54_000]);
});

t.test(
  "a scale to 0 by another writer, read mid-flight with its VMs still listed, is waited out, not a failed attempt",
  async (t) => {
    const midFlight = snap(
      { provisioningState: "Updating", sku: { name: "Standard_D1_v2", tier: "Standard", capacity: 0 } },
      ["Succeeded"],
    );
    const settled = snap(
      { provisioningState: "Succeeded", sku: { name: "Standard_D1_v2", tier: "Standard", capacity: 0 } },
      [],
    );
    const gw = new ScriptedGateway([midFlight, settled], []);
    const { promise, history } = run(gw, resizeTo(0));
    const result = await promise;
    t.notMatch(history.join("\n"), /SuspiciousRead|attempt 2/, "no failed attempt");
    t.equal(result.capacity.desired, 0);
    t.equal(result.instanceCount, 0);
  },
);

t.test(
  "capacity 0 with running VMs on a settled scale set is suspicious: re-read, then a retryable failure",
  async (t) => {
    const bad = snap({ sku: { name: "Standard_D1_v2", capacity: 0 } }, ["Succeeded"]);
    const gw = new ScriptedGateway([bad]);
    const planner = { ...resizeTo(0), readsInstances: true };
    const { promise } = run(gw, planner);
    const err = await promise.catch((e) => e);
    t.ok(err instanceof GaveUpError);
    t.equal(err.failure.code, "SuspiciousRead");
    t.equal(err.retryable, true);
    t.same(gw.writes, [], "never a plan on it");
  },
);

t.test("Failed with the requested capacity in the model: re-driven, and confirmed once Azure gets there", async (t) => {
  // A scale-out to 2 that Azure accepted, then could not allocate: the model says 2, one VM runs, one is Failed.
  const failed = snap(
    { provisioningState: "Failed", sku: { name: "Standard_D1_v2", capacity: 2 } },
    ["Succeeded", "Failed"],
    '"8"',
  );
  const done = snap(
    { provisioningState: "Succeeded", sku: { name: "Standard_D1_v2", capacity: 2 } },
    ["Succeeded", "Succeeded"],
    '"9"',
  );
  const gw = new ScriptedGateway([failed]);
  gw.onWrite = () => {
    gw.reads = [done];
    gw.vms = done.vms!;
  };
  const { promise, history } = run(gw, resizeTo(2));
  const result = await promise;
  t.equal(gw.writes.length, 1, "one re-drive");
  t.same(
    gw.writes[0].step.kind === "update" && gw.writes[0].step.patch,
    { sku: { name: "Standard_D1_v2", capacity: 2 } },
    "its own model, re-sent",
  );
  t.equal(gw.writes[0].ifMatch, '"8"', "with If-Match of the Failed read");
  t.match(history.join("\n"), /Failed with 1 of 2 instance\(s\) running; re-sending its model/);
  t.same(
    { desired: result.capacity.desired, instances: result.instanceCount, confirmed: result.confirmed },
    { desired: 2, instances: 2, confirmed: undefined },
  );
});

t.test(
  "Failed that stays Failed: bounded re-drives, then a failure whose result is the instances Azure lists",
  async (t) => {
    const failed = snap(
      { provisioningState: "Failed", sku: { name: "Standard_D1_v2", capacity: 2 } },
      ["Succeeded", "Failed"],
      '"8"',
    );
    const gw = new ScriptedGateway([failed]);
    gw.onWrite = () => {
      throw new LongRunningOperationError(
        "Failed",
        "AllocationFailed",
        "Allocation failed. We do not have sufficient capacity.",
      );
    };
    const { promise, history } = run(gw, resizeTo(2));
    const err = (await promise.catch((e) => e)) as GaveUpError<ServerGroupResult>;
    t.ok(err instanceof GaveUpError, String(err));
    t.equal(gw.writes.length, retry.maxRedrives, "re-driven maxRedrives times, no more");
    t.equal(err.failure.code, "ScaleSetLeftFailed");
    t.equal(err.retryable, true, "the same request later can succeed");
    t.same(
      {
        desired: err.result?.capacity.desired,
        instances: err.result?.instanceCount,
        requested: err.result?.requestedCapacity,
        confirmed: err.result?.confirmed,
      },
      { desired: 1, instances: 1, requested: 2, confirmed: false },
      "never the requested 2",
    );
    t.notMatch(history.join("\n"), /Azure confirmed/);
  },
);

t.test("Canceled (preempted by a more recent write): re-read, re-planned on what the other write left", async (t) => {
  const start = snap({ sku: { name: "Standard_D1_v2", capacity: 1 } }, ["Succeeded"], '"3"');
  // The write that preempted ours set capacity 4 and is still running; then it ends.
  const other = snap(
    { provisioningState: "Updating", sku: { name: "Standard_D1_v2", capacity: 4 } },
    ["Succeeded"],
    '"5"',
  );
  const otherDone = snap(
    { sku: { name: "Standard_D1_v2", capacity: 4 } },
    ["Succeeded", "Succeeded", "Succeeded", "Succeeded"],
    '"5"',
  );
  const final = snap({ sku: { name: "Standard_D1_v2", capacity: 2 } }, ["Succeeded", "Succeeded"], '"6"');
  const gw = new ScriptedGateway([start]);
  gw.onWrite = (_step, n) => {
    if (n === 1) {
      gw.reads = [other, otherDone];
      gw.vms = otherDone.vms!;
      throw new LongRunningOperationError(
        "Canceled",
        "OperationPreempted",
        "Operation execution has been preempted by a more recent operation.",
      );
    }
    gw.reads = [final];
    gw.vms = final.vms!;
  };
  const { promise, history } = run(gw, resizeTo(2));
  const result = await promise;
  t.equal(gw.writes.length, 2);
  const [first, second] = gw.writes.map((w) => w.step as Extract<WriteStep, { kind: "update" }>);
  t.equal(first.summary.startsWith("set capacity 1 → 2"), true, first.summary);
  t.equal(
    second.summary.startsWith("set capacity 4 → 2"),
    true,
    `re-planned on the other write's 4: ${second.summary}`,
  );
  t.equal(gw.writes[1].ifMatch, '"5"', "with the ETag of the fresh read, not the old plan's");
  t.match(history.join("\n"), /operation canceled OperationPreempted, retrying/);
  t.equal(result.capacity.desired, 2);
});

t.test("a bug in a planner fails at once as what it is: one attempt, no retry", async (t) => {
  const gw = new ScriptedGateway([snap({}, ["Succeeded"])]);
  const planner: ScaleSetPlanner<unknown> = {
    readsInstances: false,
    plan: (snapshot) => {
      const nics = (snapshot.vmss as Json).missing.networkInterfaceConfigurations;
      return { kind: "done", summary: String(nics) };
    },
    result: () => undefined,
  };
  const { promise, waits } = run(gw, planner);
  const err: unknown = await promise.catch((e: unknown) => e);
  t.ok(err instanceof TypeError, `the TypeError itself: ${String(err)}`);
  t.same(waits, []);
  t.same(gw.log, ["GET"]);
});

t.test("Succeeded while the VM list disagrees: read again, never report either number", async (t) => {
  const lagging = snap({ sku: { name: "Standard_D1_v2", capacity: 2 } }, ["Succeeded"]);
  const gw = new ScriptedGateway([lagging]);
  const { promise } = run(gw, resizeTo(2));
  const err = await promise.catch((e) => e);
  t.ok(err instanceof GaveUpError);
  t.equal(err.failure.code, "InstanceCountDisagrees");
  t.equal(err.retryable, true);
  t.equal(err.result, undefined, "no result that could pass for a capacity");
});

t.test("a write resumed after a restart that Azure ended Canceled: re-read and re-planned, not replayed", async (t) => {
  const now = snap(
    { sku: { name: "Standard_D1_v2", capacity: 4 } },
    ["Succeeded", "Succeeded", "Succeeded", "Succeeded"],
    '"9"',
  );
  const done = snap({ sku: { name: "Standard_D1_v2", capacity: 2 } }, ["Succeeded", "Succeeded"], '"10"');
  const gw = new ScriptedGateway([now]);
  gw.resume = () =>
    Promise.reject(
      new LongRunningOperationError(
        "Canceled",
        "OperationPreempted",
        "Operation execution has been preempted by a more recent operation.",
      ),
    );
  gw.onWrite = () => {
    gw.reads = [done];
    gw.vms = done.vms!;
  };
  const history: string[] = [];
  const result = await executeOp({
    gateway: gw,
    planner: resizeTo(2),
    retry,
    lroPollIntervalMs: 1000,
    log: (line) => history.push(line),
    resume: { step: { kind: "update", summary: "set capacity 1 → 2" }, poller: "{}" },
    random: () => 0.5,
    wait: async () => {},
  });
  t.match(
    history.join("\n"),
    /could not be followed \(operation canceled OperationPreempted: .*\); re-reading and re-planning/,
  );
  t.equal(gw.writes.length, 1);
  t.match(
    gw.writes[0].step.summary,
    /^set capacity 4 → 2/,
    "planned on what the preempting write left, not the stored plan",
  );
  t.equal(gw.writes[0].ifMatch, '"9"');
  t.equal(result.capacity.desired, 2);
});

t.test(
  "a planner's wait re-reads (paced like a busy wait), says so once, and gives up at the deadline counted from the wait",
  async (t) => {
    const settled = snap({ sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 2 } }, [
      "Succeeded",
      "Succeeded",
    ]);
    const gw = new ScriptedGateway([settled]);
    let plans = 0;
    const planner: ScaleSetPlanner<number> = {
      readsInstances: true,
      plan: () =>
        ++plans < 3 ? { kind: "wait", summary: "new instances starting" } : { kind: "done", summary: "all healthy" },
      result: () => plans,
    };
    const { promise, history, waits } = run(gw, planner);
    t.equal(await promise, 3);
    t.same(gw.writes, [], "waiting writes nothing");
    t.same(waits, [24_000, 24_000], "two waits, each at the busy pace");
    t.equal(history.filter((l) => /new instances starting/.test(l)).length, 1, "said once");

    const forever: ScaleSetPlanner<number> = {
      readsInstances: true,
      plan: () => ({ kind: "wait", summary: "never healthy" }),
      result: () => 0,
    };
    const stuck = run(new ScriptedGateway([settled]), forever);
    const err = await stuck.promise.catch((e) => e);
    t.type(err, GaveUpError);
    t.equal(err.failure.code, "WaitTimedOut");
    t.match(err.message, /still waiting after .*never healthy/);
  },
);

t.test("a planner may allow more writes per attempt than the default four", async (t) => {
  const settled = snap({ sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 2 } }, ["Succeeded", "Succeeded"]);
  const step = (n: number) => ({ kind: "update" as const, summary: `write ${n}`, patch: { tags: { n: String(n) } } });
  const planner = (maxWrites?: number): ScaleSetPlanner<number> => {
    let n = 0;
    return {
      readsInstances: true,
      ...(maxWrites ? { maxWrites } : {}),
      plan: () => (n < 6 ? step(++n) : { kind: "done", summary: "six written" }),
      result: () => n,
    };
  };
  const many = new ScriptedGateway([settled]);
  t.equal(await run(many, planner(10)).promise, 6);
  t.equal(many.writes.length, 6);
  const capped = await run(new ScriptedGateway([settled]), planner()).promise.catch((e) => e);
  t.equal(capped.failure.code, "PlanDidNotConverge");
});

t.test(
  "what each kind of write is conditional on: one rule (guardOf), as the write sends it and the history says it",
  async (t) => {
    const table: [WriteStep["kind"], string][] = [
      ["update", ' (If-Match "7")'],
      ["delete", ' (If-Match "7")'],
      ["create", " (If-None-Match *)"],
      ["manualUpgrade", ""],
      ["deleteInstances", ""],
    ];
    for (const [kind, label] of table) t.equal(guardLabel(guardOf(kind, '"7"')), label, kind);
    t.equal(guardLabel(guardOf("update", undefined)), " (If-Match none)", "no ETag read: said, and sent without");
  },
);

t.test(
  "instances Azure lists that do not run (a Spot VM it evicted): the operation ends InstancesNotRunning, with what runs",
  async (t) => {
    const settled = snap({ sku: { name: "Standard_D1_v2", capacity: 2 } }, ["Succeeded", "Succeeded"]);
    const powered = (vm: VirtualMachineScaleSetVM, state: string) => ({
      ...vm,
      instanceView: { statuses: [{ code: "ProvisioningState/succeeded" }, { code: `PowerState/${state}` }] },
    });
    const gw = new ScriptedGateway(
      [settled],
      [powered(settled.vms![0], "running"), powered(settled.vms![1], "deallocated")],
    );
    const err = (await run(gw, resizeTo(2)).promise.catch((e) => e)) as GaveUpError<ServerGroupResult>;
    t.ok(err instanceof GaveUpError, String(err));
    t.equal(err.failure.code, "InstancesNotRunning");
    t.equal(err.retryable, true, "the same request later can succeed");
    t.same(gw.writes, [], "no write brings an evicted Spot VM back");
    t.match(err.result, { instanceCount: 1, confirmed: false });
  },
);
