// `vmss-ops conformance` against the service and the simulator: a green run of every operation on a Uniform and a
// Flexible set, judged by the service's reads; a group holding something else refused; nothing done without --yes;
// and whatever happens (a failure injected halfway, SIGINT to a real child process, a run killed outright) nothing
// of a run is left in the group, and nothing untagged is touched.
import t from "tap";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { run } from "../src/cli/main.ts";
import type { ConformanceReport } from "../src/cli/conformance.ts";
import { CONFORMANCE_TAG } from "../src/cli/conformance-plan.ts";
import { startResettingTestEnv } from "./helpers/service.ts";
import { REPO } from "../testkit/child-service.ts";
import { waitFor } from "../testkit/wait-for.ts";

const { env } = await startResettingTestEnv(t);
const RG = "conformance-rg";
const NET = `/subscriptions/${env.sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Network`;
const ARGS = [
  "conformance",
  "--account",
  "demo",
  "--resource-group",
  RG,
  "--subnet-id",
  `${NET}/virtualNetworks/demo-rg-vnet/subnets/default`,
  "--load-balancer-pool-id",
  `${NET}/loadBalancers/shop-lb/backendAddressPools/shop-pool`,
];

interface Contents {
  exists: boolean;
  resources: { id: string; name: string; type: string; tags: Record<string, string> }[];
}

async function contents(): Promise<Contents> {
  const answer = await env.api<Contents>("GET", `/accounts/demo/resource-groups/${RG}/contents`);
  if (answer.status !== 200) throw new Error(`contents: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    tty: false,
    env: { VMSS_OPS_URL: env.baseUrl },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

t.beforeEach(async () => {
  t.equal((await env.simControl("PUT", `/_sim/resourceGroups/${RG}`)).status, 201, "a fresh, empty group");
});

t.test("green: every step as expected on a Uniform and a Flexible set, each with its task's ARM calls", async (t) => {
  const result = await cli([...ARGS, "--yes", "--json"]);
  t.equal(result.code, 0, result.err + result.out);
  const report = JSON.parse(result.out) as ConformanceReport;
  t.equal(report.outcome, "ok");
  t.same(
    report.steps.map((s) => `${s.scaleSet.replace(report.runId, "RUN")} ${s.operation} ${s.outcome}`),
    [
      "vmssconf-RUN-v000 createServerGroup ok",
      "vmssconf-RUN-v000 resizeServerGroup ok",
      "vmssconf-RUN-v000 resizeServerGroup ok",
      "vmssconf-RUN-v000 resizeServerGroup ok",
      "vmssconf-RUN-v000 disableServerGroup ok",
      "vmssconf-RUN-v000 enableServerGroup ok",
      "vmssconf-RUN-v000 rollingUpgrade ok",
      "vmssconf-RUN-v000 terminateInstances ok",
      "vmssconf-RUN-v000 scaleDown ok",
      "vmssconf-RUN-v000 destroyServerGroup ok",
      "vmssconf-RUN-flex-v000 createServerGroup ok",
      "vmssconf-RUN-flex-v000 resizeServerGroup ok",
      "vmssconf-RUN-flex-v000 disableServerGroup ok",
      "vmssconf-RUN-flex-v000 enableServerGroup ok",
      "vmssconf-RUN-flex-v000 terminateInstances ok",
      "vmssconf-RUN-flex-v000 destroyServerGroup ok",
    ],
    "every operation, in order, judged by the read after it",
  );
  t.ok(
    report.steps.every((s) => typeof s.armCalls === "number" && s.armCalls > 0 && s.taskId),
    "each step names its task and the ARM calls the task made",
  );
  t.match(report.steps[0].azure, /^Done: created vmssconf-[a-z0-9]{6}-v000: capacity 0 .*as Azure confirmed/);
  t.match(report.steps.at(-1)!.azure, /is deleted, as Azure confirmed \(GET 404 ResourceNotFound\)/);
  t.same(report.cleanup, [], "nothing left to clean: the run destroyed its own");
  t.same(report.left, []);
  t.same((await contents()).resources, [], "the group is empty again");
});

t.test("without --yes: what it would create and its cost, exit 2, nothing made", async (t) => {
  const result = await cli(ARGS);
  t.equal(result.code, 2);
  t.match(
    result.err,
    /will, in conformance-rg \(eastus\), through the service:\n {2}size: Standard_B1ls, the smallest size eastus offers the subscription with quota for 2 instance\(s\) \(1 vCPU, 4 GB\)\n {2}create vmssconf-[a-z0-9]{6}-v000 \(Uniform, Standard_B1ls, capacity 0/,
  );
  t.match(result.err, /cost: at most 2\.5 instance-hours of Standard_B1ls at \$0\.0052\/h: about \$0\.013/);
  t.match(result.err, /run it again with --yes/);
  t.same((await contents()).resources, []);
});

t.test(
  "the size: the smallest the region offers, passing over a restricted one and one without quota; --size overrides",
  async (t) => {
    const sizeLine = (err: string) => /\n {2}size: ([^\n]*)/.exec(err)?.[1] ?? err;
    await env.simControl("PUT", "/_sim/subscription/skus/eastus", { notAvailable: ["Standard_B1ls"] });
    t.match(
      sizeLine((await cli(ARGS)).err),
      /^Standard_B1s, the smallest size eastus offers the subscription with quota for 2 instance\(s\) \(1 vCPU, 4 GB\); passed over Standard_B1ls \(NotAvailableForSubscription\)$/,
    );
    // The B-series family has room for one 1-vCPU instance, not two: the next size up of another family.
    await env.simControl("PUT", "/_sim/subscription/usages/eastus", { limits: { standardBSFamily: 1 } });
    t.match(
      sizeLine((await cli(ARGS)).err),
      /^Standard_D2s_v3, .*; passed over Standard_B1ls \(NotAvailableForSubscription\), Standard_B1s \(needs 2 vCPUs of standardBSFamily quota, 1 free\), Standard_B2s \(needs 4 vCPUs/,
    );
    const named = await cli([...ARGS, "--size", "Standard_F2s_v2"]);
    t.match(sizeLine(named.err), /^Standard_F2s_v2, named by --size$/);
    t.match(named.err, /create vmssconf-[a-z0-9]{6}-v000 \(Uniform, Standard_F2s_v2, capacity 0/);

    // Regional cores all in use: no size fits, nothing is made, exit 1 naming the fix.
    await env.simControl("PUT", "/_sim/subscription/usages/eastus", { limits: { cores: 16 } });
    const none = await cli([...ARGS, "--yes"]);
    t.equal(none.code, 1, none.err);
    t.match(none.err, /no size in eastus is both allowed to the subscription and within its quota for 2 instance\(s\)/);
    t.match(none.err, /request quota \(az quota update\), or name a size the subscription may use with --size/);
    t.same((await contents()).resources, [], "nothing made");
  },
);

t.test("a Flexible set Azure refuses the subscription: skipped, the run still passes and cleans up", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    action: "respond",
    method: "PUT",
    pathContains: "-flex-v000",
    status: 409,
    code: "OperationNotAllowed",
    message: "injected: Flexible orchestration is not available for this subscription",
    count: 100,
  });
  const result = await cli([...ARGS, "--yes", "--json"]);
  await env.simControl("DELETE", "/_sim/faults");
  t.equal(result.code, 0, result.err + result.out);
  const report = JSON.parse(result.out) as ConformanceReport;
  t.equal(report.outcome, "ok");
  const flex = report.steps.filter((s) => s.scaleSet.includes("-flex-"));
  t.same(
    flex.map((s) => [s.operation, s.outcome]),
    [["createServerGroup", "skipped"]],
    "only its create ran",
  );
  t.match(
    flex[0].azure,
    /^the subscription does not allow a Flexible scale set here, Azure answered: .*OperationNotAllowed/,
  );
  t.ok(
    report.steps.filter((s) => !s.scaleSet.includes("-flex-")).every((s) => s.outcome === "ok"),
    "the Uniform set's steps all passed",
  );
  t.same((await contents()).resources, [], "the group is empty again");
});

t.test("a group holding a resource no run made is refused, and the resource is left alone", async (t) => {
  // behind no load balancer (one it named would be a third resource): the scale set and the network its subnet is in
  await env.simControl("PUT", `/_sim/scaleSets/${RG}/someone-v001`, { capacity: 1, loadBalanced: false });
  const result = await cli([...ARGS, "--yes"]);
  t.equal(result.code, 2);
  t.match(
    result.err,
    /refused: conformance-rg holds 2 resource\(s\) no conformance run made[\s\S]*Microsoft.Compute\/virtualMachineScaleSets someone-v001/,
  );
  t.same((await contents()).resources.map((r) => r.name).sort(), ["conformance-rg-vnet", "someone-v001"], "untouched");
  t.equal(
    (await cli([...ARGS.slice(0, 4), "no-such-rg", ...ARGS.slice(5), "--yes"])).code,
    2,
    "a group that is not there",
  );
});

t.test("a failure injected halfway: the run stops there, reports it, and destroys what it made", async (t) => {
  // Azure refuses every instance delete: the rolling upgrade (the seventh step), whose surge deletes the old
  // instances, fails; destroying a scale set is another call.
  await env.simControl("POST", "/_sim/faults", {
    action: "respond",
    method: "POST",
    pathContains: "/delete",
    status: 400,
    code: "OperationNotAllowed",
    message: "injected: the instance cannot be deleted",
    count: 100,
  });
  const result = await cli([...ARGS, "--yes", "--json"]);
  await env.simControl("DELETE", "/_sim/faults");
  t.equal(result.code, 1, result.err);
  const report = JSON.parse(result.out) as ConformanceReport;
  t.equal(report.outcome, "failed");
  const last = report.steps.at(-1)!;
  t.equal(last.operation, "rollingUpgrade");
  t.equal(last.outcome, "failed");
  t.match(last.azure, /OperationNotAllowed/, "what Azure answered");
  t.same(
    report.steps.map((s) => s.outcome),
    [...Array(6).fill("ok"), "failed"],
    "the steps before it passed; none after it ran (the Flexible set was never made)",
  );
  t.same(
    report.cleanup.map((c) => [c.operation, c.outcome]),
    [["destroyServerGroup", "ok"]],
  );
  t.same(report.left, []);
  t.same((await contents()).resources, [], "nothing of the run is left");
});

/** The command as a person runs it: a real child process (bin/vmss-ops.js). */
function child(args: string[]) {
  const proc = spawn(process.execPath, [join(REPO, "bin", "vmss-ops.js"), ...args], {
    cwd: REPO,
    env: { ...process.env, VMSS_OPS_URL: env.baseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    proc.on("exit", (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { proc, exited, output: () => ({ stdout, stderr }) };
}

/** Until the run's first scale set is in the group (its create is under way). */
async function untilTaggedSetExists() {
  await waitFor(async () => (await contents()).resources.some((r) => r.tags[CONFORMANCE_TAG] !== undefined), {
    what: "the run's scale set in the group",
  });
}

t.test("SIGINT to the command mid-run: it cancels the task, destroys what it made, exits 130", async (t) => {
  // Slow writes, so that the run is surely in the middle of its steps when the signal comes.
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 1500 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 150 }));
  const c = child([...ARGS, "--yes"]);
  await untilTaggedSetExists();
  c.proc.kill("SIGINT");
  const code = await c.exited;
  const { stdout, stderr } = c.output();
  t.equal(code, 130, stderr);
  t.match(stderr, /SIGINT: stopping, then destroying what run [a-z0-9]{6} made/);
  t.match(stdout, /^conformance run [a-z0-9]{6} in demo\/eastus\/conformance-rg: INTERRUPTED/);
  t.match(stdout, /clean up \(vmss-ops-conformance=[a-z0-9]{6}\)\s+\d+\s+[\d.]+\s+OK/, "the cleanup's row");
  t.match(stdout, /nothing of run [a-z0-9]{6} is left in conformance-rg/);
  t.same((await contents()).resources, [], "the group is empty again");
});

t.test("a run killed outright leaves its scale set; the next run destroys it first, then runs", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 1500 });
  const died = child([...ARGS, "--yes", "--skip-flexible"]);
  await untilTaggedSetExists();
  died.proc.kill("SIGKILL");
  await died.exited;
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 150 });
  const left = (await contents()).resources;
  t.equal(left.length, 1, "the dead run's scale set is still there");
  const deadRun = left[0].tags[CONFORMANCE_TAG];

  const result = await cli([...ARGS, "--yes", "--skip-flexible", "--json"]);
  t.equal(result.code, 0, result.err);
  t.match(result.err, new RegExp(`destroy ${left[0].name}, left by run ${deadRun}`));
  const report = JSON.parse(result.out) as ConformanceReport;
  t.same(
    report.cleanup.map((c) => [c.scaleSet, c.outcome]),
    [[left[0].name, "ok"]],
    "the leftover destroyed before the run",
  );
  t.equal(report.outcome, "ok");
  t.same((await contents()).resources, []);
});
