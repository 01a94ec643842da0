// Seeded random schedules: our tasks, an autoscaler-like writer, a portal-like writer, another tool writing through ARM,
// a reader of the service's server-group view, and injected 409/412/429/5xx, failed, preempted (Canceled) and
// AllocationFailed operations, in random interleavings on one scale set per schedule (schedules run side by side, each
// on its own scale set). Writes outlast their first poll, so reads land mid-write and writes preempt one another
// (the simulator's conflictThenPreempt mode). After each schedule the invariants must hold:
//   1. no write was sent without If-Match (PUT/PATCH);
//   2. no update was lost: every version our writes made was planned on the version just before it (If-Match =
//      the ETag it replaced), by a task whose history names that ETag; every portal tag is still there;
//   3. every capacity a task reported equals what Azure had at that version (confirmed results), or names it as the
//      requested capacity it did not reach (unconfirmed ones);
//   4. every task ended, completed or failed with a reason;
//   5. no reported capacity that the VM list did not show: a task's or a read's capacity is the number of running
//      instances its VM list showed, confirmed only on a Succeeded scale set; at the final ETag, what Azure runs.
// A failure prints the seed: RANDOM_SEED=<seed> RANDOM_SCHEDULES=1 npx tap test/randomized-concurrency.test.ts
import t from "tap";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config/accounts.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startTestEnv, type SimCall, type TestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const SCHEDULES = Number(process.env.RANDOM_SCHEDULES ?? 120);
const PARALLEL = Number(process.env.RANDOM_PARALLEL ?? 12);
const FIRST_SEED = Number(process.env.RANDOM_SEED ?? 20261121);
t.setTimeout(20 * 60_000);

/** mulberry32: small, fast, and the same sequence on every machine. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}

interface Version {
  etag: string;
  capacity: number;
  tags: Record<string, string>;
  source: string;
  kind?: string;
  ifMatch?: string | null;
  previousEtag: string | null;
}

// A write takes 60 ms; the service polls it at most every 30 ms whatever the (whole-second) Retry-After says, so a
// write's second poll lands after its halfway mark: reads land mid-write, and writes can be preempted.
const WRITE_MS = 60;
const env = await startTestEnv({
  writeDurationMs: WRITE_MS,
  env: {
    LRO_POLL_INTERVAL_MS: "2",
    LRO_MAX_POLL_INTERVAL_MS: "30",
    RETRY_CONFLICT_BASE_DELAY_MS: "2",
    RETRY_TRANSIENT_BASE_DELAY_MS: "2",
    RETRY_THROTTLE_DEFAULT_DELAY_MS: "5",
    RETRY_MAX_DELAY_MS: "100",
    RETRY_MAX_ATTEMPTS: "12",
    RETRY_DEADLINE_MS: "60000",
  },
});
t.teardown(() => env.close());
await env.simControl("PUT", "/_sim/config", { concurrentWrites: "conflictThenPreempt" });
const otherTool = createComputeClient(
  simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }),
);

// The actors' own pace: when each acts in the drawn schedule, and how long one waits before trying again. These
// pauses are the randomized interleaving under test, not waits for something to happen.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitAll(api: TestEnv["api"], ids: string[]): Promise<Json[]> {
  const done = new Map<string, Json>();
  await waitFor(
    async () => {
      for (const id of ids) {
        if (done.has(id)) continue;
        const { body } = await api("GET", `/task/${id}`);
        if (body.status.completed) done.set(id, body);
      }
      return done.size === ids.length;
    },
    { what: "every task to finish", timeoutMs: 180_000, seen: () => ids.filter((id) => !done.has(id)) },
  );
  return ids.map((id) => done.get(id));
}

type Action = { at: number; run: () => Promise<void> };

const stats = {
  tasks: 0,
  failedTasks: 0,
  outOfBand: 0,
  canceled: 0,
  failedScaleSets: 0,
  midWriteReads: 0,
  reads: 0,
  statuses: new Map<number, number>(),
};

const NOT_RUNNING = ["Creating", "Deleting", "Failed"];

/** What one server-group read must say about itself: its capacity is what its VM list shows running, or it says not. */
function checkRead(sg: Json, where: string, problems: string[]) {
  const running = sg.instances.filter((i: Json) => !NOT_RUNNING.includes(i.provisioningState)).length;
  if (sg.instanceCount !== running)
    problems.push(`${where}: instanceCount ${sg.instanceCount}, but ${running} instances listed running`);
  if (sg.disagreement === undefined && (sg.provisioningState !== "Succeeded" || sg.capacity.desired !== running)) {
    problems.push(
      `${where}: capacity ${sg.capacity.desired} on a ${sg.provisioningState} scale set with ${running} running, and no disagreement said`,
    );
  }
}

async function schedule(seed: number): Promise<string[]> {
  const r = rng(seed);
  const problems: string[] = [];
  const NAME = `rand-${seed}`;
  const created = await env.simControl("PUT", `/_sim/scaleSets/demo-rg/${NAME}`, {
    capacity: 3,
    loadBalanced: r.next() < 0.7,
  });
  if (created.status >= 300) return [`create ${NAME}: ${created.status} ${JSON.stringify(created.body)}`];
  const fault = async (f: Record<string, unknown>) => {
    const res = await env.simControl("POST", "/_sim/faults", { pathContains: `virtualMachineScaleSets/${NAME}`, ...f });
    if (res.status >= 300) problems.push(`fault ${JSON.stringify(f)}: ${res.status} ${JSON.stringify(res.body)}`);
  };

  // Faults on the scale set's own URLs (reads and writes), including real 412s through out-of-band changes.
  for (let i = r.int(0, 2); i > 0; i--) {
    const status = r.pick([408, 409, 412, 429, 500, 503] as const);
    const code = {
      408: "RequestTimeout",
      409: "ConflictingConcurrentWriteNotAllowed",
      412: "PreconditionFailed",
      429: "TooManyRequests",
      500: "InternalServerError",
      503: "ServiceUnavailable",
    }[status];
    await fault({ method: r.pick(["GET", "PATCH", "*"]), status, code, count: r.int(1, 2) });
  }
  // Operations that Azure ends Failed (kept, not rolled back), short of VMs, or Canceled by another writer's write.
  if (r.next() < 0.3)
    await fault({ action: "allocationFailed", method: "PATCH", allocatable: r.int(0, 2), count: r.int(1, 3) });
  if (r.next() < 0.15)
    await fault({
      action: "failOperation",
      method: r.pick(["PATCH", "POST"]),
      code: "InternalExecutionError",
      message: "Failed.",
      count: 1,
    });
  if (r.next() < 0.3)
    await fault({
      action: "preemptOperation",
      method: "PATCH",
      change: r.next() < 0.5 ? { capacity: r.int(0, 6) } : { tags: { [`preempt-${seed}`]: "x" } },
      count: 1,
    });
  const injectedTag = r.next() < 0.4 ? `portal-${seed}-f` : undefined;
  if (injectedTag)
    await fault({ action: "outOfBandChange", method: "PATCH", change: { tags: { [injectedTag]: "x" } }, count: 1 });

  const taskIds: string[] = [];
  const portalTags: string[] = [];
  const portalNicTags: string[] = [];
  const foreignIfMatches = new Set<string>();
  const actions: Action[] = [];
  for (let i = r.int(2, 5); i > 0; i--) {
    const kind = r.pick(["resize", "resize", "scaleDown", "disable", "enable", "terminate"] as const);
    const lo = r.int(0, 3);
    const desired = r.int(lo, 6);
    const body: [string, unknown] =
      kind === "resize"
        ? ["resizeServerGroup", demo(NAME, { capacity: { min: lo, max: r.int(desired, 8), desired } })]
        : kind === "scaleDown"
          ? ["scaleDown", demo(NAME, { capacity: { min: 0, max: desired, desired } })]
          : kind === "disable"
            ? ["disableServerGroup", demo(NAME)]
            : kind === "enable"
              ? ["enableServerGroup", demo(NAME)]
              : [
                  "terminateInstances",
                  demo(NAME, { instanceIds: [...new Set([String(r.int(0, 7)), String(r.int(0, 7))])] }),
                ];
    actions.push({
      at: r.int(0, 3 * WRITE_MS),
      run: async () => {
        const res = await env.api("POST", `/azure/ops/${body[0]}`, body[1]);
        if (res.status !== 202) problems.push(`submit ${body[0]}: ${res.status} ${JSON.stringify(res.body)}`);
        else taskIds.push(res.body.id);
      },
    });
  }
  for (let i = r.int(1, 3); i > 0; i--) {
    const actor = r.pick(["autoscaler", "portalTags", "portalNetwork", "otherTool"] as const);
    const tag = `portal-${seed}-${i}`;
    if (actor === "otherTool") {
      // Another deployment tool, through ARM like us: reads, then writes with If-Match; gives up after a few tries.
      const capacity = r.int(0, 6);
      actions.push({
        at: r.int(0, 4 * WRITE_MS),
        run: async () => {
          for (let tries = 0; tries < 10; tries++) {
            try {
              const vmss = await otherTool.virtualMachineScaleSets.get("demo-rg", NAME);
              const poller = otherTool.virtualMachineScaleSets.update(
                "demo-rg",
                NAME,
                { sku: { ...vmss.sku, capacity } },
                { ifMatch: vmss.etag },
              );
              await poller.submitted();
              foreignIfMatches.add(vmss.etag!);
              stats.outOfBand++;
              await poller.pollUntilDone().catch(() => {});
              return;
            } catch {
              await sleep(WRITE_MS / 2);
            }
          }
        },
      });
      continue;
    }
    const change =
      actor === "autoscaler"
        ? { capacity: r.int(0, 6) }
        : actor === "portalTags"
          ? { tags: { [tag]: "set in the portal" } }
          : { nicTags: { [tag]: "network profile edited in the portal" } };
    actions.push({
      at: r.int(0, 4 * WRITE_MS),
      run: async () => {
        // Like any writer, it gets 409 while a write is in flight; it tries for a while, then gives up.
        for (let tries = 0; tries < 100; tries++) {
          const res = await env.simControl("PATCH", `/_sim/scaleSets/demo-rg/${NAME}`, change);
          if (res.status === 200) {
            stats.outOfBand++;
            if (actor === "portalTags") portalTags.push(tag);
            if (actor === "portalNetwork") portalNicTags.push(tag);
            return;
          }
          await sleep(5);
        }
      },
    });
  }
  // Reads of the service's server-group view at random moments, mid-write or not.
  for (let i = r.int(1, 3); i > 0; i--) {
    actions.push({
      at: r.int(0, 6 * WRITE_MS),
      run: async () => {
        const res = await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${NAME}`);
        if (res.status !== 200) return; // 503 when Azure keeps answering with faults: the read says so, and that is all
        stats.reads++;
        if (res.body.provisioningState !== "Succeeded") stats.midWriteReads++;
        checkRead(res.body, `read of ${NAME}`, problems);
      },
    });
  }
  await Promise.all(
    actions.map(async (a) => {
      await sleep(a.at);
      await a.run();
    }),
  );
  const tasks = await waitAll(env.api, taskIds);
  await waitFor(async () => !(await env.simControl("GET", `/_sim/scaleSets/demo-rg/${NAME}`)).body.inFlight, {
    what: `the last write on ${NAME} to end`,
    intervalMs: 5,
  });

  const calls: SimCall[] = (await env.calls()).filter((c) =>
    c.path.toLowerCase().includes(`/virtualmachinescalesets/${NAME}`),
  );
  const state = (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${NAME}`)).body;
  const versions: Version[] = (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${NAME}/versions`)).body;

  stats.tasks += tasks.length;
  stats.failedTasks += tasks.filter((x) => x.status.failed).length;
  for (const c of calls)
    if (c.status !== null && c.status >= 400) stats.statuses.set(c.status, (stats.statuses.get(c.status) ?? 0) + 1);
  const histories = tasks.map((task) => task.history.map((h: Json) => h.status).join("\n")).join("\n");
  stats.canceled += (histories.match(/operation canceled/g) ?? []).length;
  stats.failedScaleSets += (histories.match(/Azure left the scale set Failed/g) ?? []).length;

  // 1. conditional writes only
  for (const c of calls) {
    if ((c.method === "PATCH" || c.method === "PUT") && c.ifMatch === null)
      problems.push(`unconditional ${c.method} ${c.path}`);
  }
  // 2. no lost update (the other tool's writes are its own business)
  for (const v of versions.filter(
    (v) => v.source === "arm" && v.kind === "update" && !foreignIfMatches.has(v.ifMatch ?? ""),
  )) {
    if (v.ifMatch !== v.previousEtag)
      problems.push(`version ${v.etag} written with If-Match ${v.ifMatch} over ${v.previousEtag}`);
    if (!histories.includes(`(If-Match ${v.ifMatch})`))
      problems.push(`version ${v.etag}: no task history names the ETag it was planned on (${v.ifMatch})`);
  }
  for (const tag of portalTags) if (!(tag in (state.vmss.tags ?? {}))) problems.push(`portal tag ${tag} was lost`);
  if (injectedTag) {
    // The injected change lands just before the first PATCH on the scale set: if any PATCH was sent, it happened,
    // and its tag must have survived every write planned after it.
    const patched = calls.some((c) => c.method === "PATCH");
    const applied = versions.some((v) => v.source === "outOfBandChange" && v.tags?.[injectedTag] !== undefined);
    if (patched && !applied) problems.push(`the out-of-band change before the first PATCH was never applied`);
    if (applied && !(injectedTag in (state.vmss.tags ?? {})))
      problems.push(`portal tag ${injectedTag} (set just before our PATCH) was lost`);
    if (!patched && applied) problems.push(`the out-of-band change was applied although no PATCH was sent`);
  }
  const nics: { name: string; tags?: Record<string, string> }[] =
    state.vmss.properties?.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations ?? [];
  for (const tag of portalNicTags) {
    for (const nic of nics)
      if (!(tag in (nic.tags ?? {}))) problems.push(`network profile edit ${tag} on NIC ${nic.name} was lost`);
  }
  // 3. reported capacity = what Azure had (confirmed), or the requested capacity it names (unconfirmed)
  for (const task of tasks) {
    for (const result of task.resultObjects.filter((x: Json) => x.type === "serverGroup")) {
      const v = versions.find((x) => x.etag === result.etag);
      const modelCapacity = result.confirmed === false ? result.requestedCapacity : result.capacity.desired;
      if (!v) problems.push(`task ${task.id} reported ETag ${result.etag}, which Azure never had`);
      else if (v.capacity !== modelCapacity)
        problems.push(`task ${task.id} reported model capacity ${modelCapacity}; Azure had ${v.capacity} at ${v.etag}`);
    }
  }
  // 5. no reported capacity that the VM list did not show
  for (const task of tasks) {
    for (const result of task.resultObjects.filter((x: Json) => x.type === "serverGroup")) {
      if (result.instanceCount === undefined)
        problems.push(`task ${task.id} reported capacity ${result.capacity.desired} without listing the VMs`);
      else if (result.instanceCount !== result.capacity.desired) {
        problems.push(
          `task ${task.id} reported capacity ${result.capacity.desired} while its VM list showed ${result.instanceCount} running`,
        );
      }
      if (result.confirmed !== false && result.provisioningState !== "Succeeded") {
        problems.push(`task ${task.id} reported a confirmed capacity on a ${result.provisioningState} scale set`);
      }
    }
  }
  const running = (state.vms ?? []).filter(
    (vm: Json) => !NOT_RUNNING.includes(vm.properties?.provisioningState),
  ).length;
  for (const task of tasks) {
    for (const result of task.resultObjects.filter(
      (x: Json) =>
        x.type === "serverGroup" &&
        x.confirmed !== false &&
        x.etag === state.etag &&
        state.vmss.properties?.provisioningState === "Succeeded",
    )) {
      if (result.capacity.desired !== running)
        problems.push(
          `task ${task.id} reported capacity ${result.capacity.desired} at the final ETag; Azure runs ${running} VMs`,
        );
    }
  }
  const final = await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${NAME}`);
  if (final.status === 200) {
    checkRead(final.body, `final read of ${NAME}`, problems);
    if (final.body.instanceCount !== running)
      problems.push(`final read: ${final.body.instanceCount} running; Azure runs ${running}`);
  } else problems.push(`final read of ${NAME}: ${final.status} ${JSON.stringify(final.body)}`);
  // 4. every task ended, with a reason when it failed
  for (const task of tasks) {
    if (!task.status.completed) problems.push(`task ${task.id} did not complete`);
    const exception = task.resultObjects.find((x: Json) => x.type === "EXCEPTION");
    if (task.status.failed && !exception?.message) problems.push(`task ${task.id} failed without a reason`);
    if (!task.status.failed && task.state !== "succeeded") problems.push(`task ${task.id} in state ${task.state}`);
  }
  await env.simControl("DELETE", `/_sim/scaleSets/demo-rg/${NAME}`);
  return problems;
}

t.test(`${SCHEDULES} random schedules from seed ${FIRST_SEED}, ${PARALLEL} at a time`, async (t) => {
  let failedSeeds = 0;
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < SCHEDULES && failedSeeds < 5) {
      const seed = FIRST_SEED + next++;
      const problems = await schedule(seed).catch((err) => [`threw: ${(err as Error).stack}`]);
      if (problems.length > 0) {
        failedSeeds++;
        t.fail(
          `seed ${seed}: ${problems.join("; ")}  (reproduce: RANDOM_SEED=${seed} RANDOM_SCHEDULES=1 npx tap test/randomized-concurrency.test.ts)`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, SCHEDULES) }, worker));
  t.equal(failedSeeds, 0, `every schedule kept the invariants`);
  const statuses = [...stats.statuses]
    .sort((a, b) => a[0] - b[0])
    .map(([k, v]) => `${k}×${v}`)
    .join(", ");
  t.comment(
    `${SCHEDULES} schedules in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stats.tasks} tasks (${stats.failedTasks} failed with a reason), ` +
      `${stats.outOfBand} writes by others, ${stats.canceled} canceled writes, ${stats.failedScaleSets} re-drives of a Failed scale set, ` +
      `${stats.reads} server-group reads (${stats.midWriteReads} mid-write), ARM errors seen: ${statuses}`,
  );
  if (SCHEDULES >= 50) {
    t.ok(
      stats.statuses.get(412) && stats.statuses.get(409) && stats.outOfBand > 0,
      "the schedules did produce contention: 409s, 412s and writes by others",
    );
    t.ok(
      stats.canceled > 0 && stats.failedScaleSets > 0 && stats.midWriteReads > 0,
      "and Canceled writes, Failed scale sets, and reads mid-write",
    );
  }
});
