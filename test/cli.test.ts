// The vmss-ops command as a user runs it: a real child process (bin/vmss-ops.js) against a real service and
// simulator, one test per exit status, then --json, --follow, --wait on a failing task, --dry-run, the task
// commands and the server groups.
import t from "tap";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, REPO } from "../testkit/child-service.ts";
import { startTestEnv } from "./helpers/service.ts";
import { run as runCli } from "../src/cli/main.ts";

const env = await startTestEnv({ writeDurationMs: 150 });
t.teardown(() => env.close());

const BIN = join(REPO, "bin", "vmss-ops.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(
  args: string[],
  options: { node?: string; url?: string; path?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(options.node ?? process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: {
        ...process.env,
        VMSS_OPS_URL: options.url ?? env.baseUrl,
        ...(options.path ? { PATH: options.path } : {}),
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

t.test("0: a resize that succeeds, waited for", async (t) => {
  const run = await cli(["resize", "web-prod-v001", "--desired", "5", "--wait"]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^task [0-9a-f-]+: succeeded \(resizeServerGroup\)/);
  t.match(run.stdout, /Done: web-prod-v001 has capacity 5 \(min 1, max 10\)|Done: web-prod-v001 has capacity 5/);
  t.equal(run.stderr, "", "no progress line when stderr is not a terminal");
  const sg = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001");
  t.equal(sg.body.capacity.desired, 5, "Azure has it");
});

t.test("1: --wait on a task that fails; --json gives the task itself", async (t) => {
  const run = await cli(["resize", "web-prod-v404", "--desired", "2", "--wait"]);
  t.equal(run.code, 1);
  t.match(run.stdout, /: failed \(resizeServerGroup\)/);
  t.match(run.stdout, /failed: 404 ResourceNotFound/);
  const json = await cli(["resize", "web-prod-v404", "--desired", "2", "--wait", "--json"]);
  t.equal(json.code, 1);
  const task = JSON.parse(json.stdout);
  t.equal(task.state, "failed");
  t.equal(task.status.retryable, false);
  t.equal(task.resultObjects.at(-1).cause, "ResourceNotFound");
});

t.test("2: bad input, refused by the service or by the command line", async (t) => {
  const refused = await cli(["resize", "web/../prod", "--desired", "3"]);
  t.equal(refused.code, 2);
  t.match(refused.stderr, /400 ValidationError: serverGroupName: must be an Azure scale set name/);
  const usage = await cli(["resize", "web-prod-v001"]);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /resize needs --desired N/);
  const unknownFlag = await cli(["resize", "web-prod-v001", "--desird", "3"]);
  t.equal(unknownFlag.code, 2);
  t.match(unknownFlag.stderr, /Unknown option '--desird'/);
  const json = await cli(["resize", "web/../prod", "--desired", "3", "--json"]);
  t.equal(json.code, 2);
  t.equal(JSON.parse(json.stdout).error, "ValidationError", "--json prints the error body for scripts");
});

t.test("3: the service cannot be reached", async (t) => {
  const port = await freePort();
  const run = await cli(["tasks"], { url: `http://127.0.0.1:${port}` });
  t.equal(run.code, 3);
  t.match(run.stderr, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
});

t.test("4: --wait gives up after --timeout, the task still running", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 4000 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 150 }));
  const run = await cli(["resize", "batch-v001", "--desired", "3", "--wait", "--timeout", "1", "--json"]);
  t.equal(run.code, 4);
  t.match(run.stderr, /has not ended after 1 s \(still running\)/);
  const task = JSON.parse(run.stdout);
  t.equal(task.status.completed, false);
  const done = await cli(["task", task.id, "--wait"]);
  t.equal(done.code, 0, "waiting again sees it end");
});

t.test("--follow prints each history line once, in order, as the task goes", async (t) => {
  const submitted = await cli(["resize", "web-prod-v002", "--desired", "4", "--json"]);
  t.equal(submitted.code, 0);
  const { id } = JSON.parse(submitted.stdout);
  const run = await cli(["task", id, "--follow"]);
  t.equal(run.code, 0);
  const task = (await env.api("GET", `/task/${id}`)).body;
  const expected = task.history.map((h: { phase: string; status: string }) => `  ${h.phase.padEnd(22)} ${h.status}`);
  t.same(
    run.stdout.trimEnd().split("\n"),
    [...expected, `task ${id}: succeeded`],
    "the whole history, each line once, then the outcome",
  );
});

t.test("--dry-run plans, writes nothing, makes no task", async (t) => {
  const before = (await env.api("GET", "/task?limit=500")).body.tasks.length;
  const run = await cli(["resize", "web-prod-v002", "--desired", "1", "--min", "1", "--max", "6", "--dry-run"]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^resizeServerGroup: would set capacity 4 → 1/);
  t.match(
    run.stdout,
    /\n {2}PATCH \/subscriptions\/[^ ]+\/virtualMachineScaleSets\/web-prod-v002\?api-version=\d{4}-\d{2}-\d{2} {2}If-Match: "\d+"\n/,
    "the request: method, path with api-version, condition",
  );
  t.match(run.stdout, /\n {4}\{\n {6}"tags": \{/, "its body, indented");
  t.match(run.stdout, /\n {2}~ \/subscriptions\/[^ ]+\/web-prod-v002 \(Modify\)\n/, "the scale set's change");
  t.match(run.stdout, /\n {6}~ sku\.capacity: 4 => 1\n/, "field by field, as az deployment what-if prints it");
  t.match(
    run.stdout,
    /then, decided only on the reads that follow[^\n]*\n {4}wait: /,
    "what comes after, decided later",
  );
  const upgrade = await cli([
    "rolling-upgrade",
    "web-prod-v002",
    "--image",
    "Canonical:ubuntu-24_04-lts:server:1.0.1",
    "--max-surge",
    "50%",
    "--dry-run",
    "--json",
  ]);
  t.equal(upgrade.code, 0, upgrade.stderr);
  t.equal(
    JSON.parse(upgrade.stdout).operations[0].operation,
    "rollingUpgrade",
    "a percentage goes as the API takes it",
  );
  const bad = await cli(["rolling-upgrade", "web-prod-v002", "--image", "Canonical:ubuntu"]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--image publisher:offer:sku:version/);
  t.equal((await env.api("GET", "/task?limit=500")).body.tasks.length, before);
});

t.test("tasks, cancel, resume, server-groups", async (t) => {
  const list = await cli(["tasks", "--server-group", "web-prod-v404", "--json"]);
  t.equal(list.code, 0);
  t.ok(JSON.parse(list.stdout).tasks.length >= 2);
  const human = await cli(["tasks", "--state", "failed"]);
  t.match(human.stdout, /failed\s+resizeServerGroup\s+Failed: 404 ResourceNotFound/);

  const failedId = JSON.parse(list.stdout).tasks[0].id;
  const resume = await cli(["resume", failedId]);
  t.equal(resume.code, 2, "a task that cannot succeed again is not resumed");
  t.match(resume.stderr, /409 TaskNotRetryable/);

  // The first resize's write lasts long enough (10 s) that the second is still queued behind it when the command
  // cancels it, however slowly processes start on a loaded machine.
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 10_000 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 150 }));
  const first = JSON.parse((await cli(["resize", "web-prod-v002", "--desired", "2", "--json"])).stdout);
  const second = JSON.parse((await cli(["resize", "web-prod-v002", "--desired", "3", "--json"])).stdout);
  const cancel = await cli(["cancel", second.id, "--json"]);
  t.equal(cancel.code, 0);
  t.equal(JSON.parse(cancel.stdout).state, "canceled", "the queued task ends at once");
  const afterCancel = await cli(["task", second.id]);
  t.equal(afterCancel.code, 1, "a canceled task reads as failed, as Orca sees it");
  t.equal((await cli(["task", first.id, "--wait"])).code, 0);

  const groups = await cli(["server-groups", "web"]);
  t.equal(groups.code, 0, groups.stderr);
  t.match(groups.stdout, /demo\s+eastus\s+web-prod-v001\s+enabled\s+capacity 5/);
  t.equal((await cli(["server-groups", "nosuchapp"])).code, 2, "an unknown application is a 404: bad input");
});

const systemNode = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p));
t.test(
  "the bin runs from an older system node, with the project's Node 24",
  { skip: systemNode ? false : "no system node here" },
  async (t) => {
    const run = await cli(["tasks", "--limit", "1", "--json"], { node: systemNode, path: "/usr/bin:/bin" });
    t.equal(run.code, 0, run.stderr);
    t.equal(JSON.parse(run.stdout).tasks.length, 1);
  },
);

t.test(
  "the command's modules come from Node's compile cache: once it is warm, Node's type stripper is not loaded",
  async (t) => {
    // A private temp dir: the cache starts cold, as at the first run on a machine.
    const tmp = mkdtempSync(join(tmpdir(), "vmss-ops-cli-cache-"));
    t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
    const stripper = async (node?: string) => {
      const run = await cli(["tasks", "--limit", "1", "--json"], {
        node,
        ...(node ? { path: "/usr/bin:/bin" } : {}),
        env: { TMPDIR: tmp, NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "report-type-stripper.mjs")}` },
      });
      t.equal(run.code, 0, run.stderr);
      // Each Node process reports as it exits (from an older system node, the launcher's too): any "loaded" counts.
      return /type-stripper loaded/.test(run.stderr)
        ? "loaded"
        : /type-stripper not loaded/.test(run.stderr)
          ? "not loaded"
          : undefined;
    };
    t.equal(await stripper(), "loaded", "the first run strips the command's modules");
    t.equal(await stripper(), "not loaded", "the next reads them from the cache");
    if (systemNode)
      t.equal(await stripper(systemNode), "not loaded", "and so does a run that starts from an older system node");
  },
);

t.test("ops: several operations as one task, in order; op: any operation by name", async (t) => {
  const body = JSON.stringify([
    { resizeServerGroup: { credentials: "demo", region: "eastus", serverGroupName: "batch-v001", targetSize: 2 } },
    { disableServerGroup: { credentials: "demo", region: "eastus", serverGroupName: "batch-v001" } },
  ]);
  const run = await cli(["ops", "--body", body, "--wait", "--json"]);
  t.equal(run.code, 0, run.stderr);
  const task = JSON.parse(run.stdout);
  t.same(task.operations, ["resizeServerGroup", "disableServerGroup"]);
  t.equal(task.state, "succeeded");
  const notAList = await cli(["ops", "--body", "{}"]);
  t.equal(notAList.code, 2);
  t.match(notAList.stderr, /ops needs a list body/);
  const op = await cli([
    "op",
    "enableServerGroup",
    "--body",
    JSON.stringify({ credentials: "demo", region: "eastus", serverGroupName: "batch-v001" }),
    "--wait",
  ]);
  t.equal(op.code, 0, op.stderr);
  t.match(op.stdout, /succeeded \(enableServerGroup\)/);
});

t.test("a progress line on a terminal, redrawn while the task runs, cleared at the end", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 3000 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 150 }));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["resize", "web-prod-v001", "--desired", "6", "--wait"], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    tty: true,
    env: { VMSS_OPS_URL: env.baseUrl },
  });
  t.equal(code, 0);
  const progress = err.filter((s) => s.startsWith("\r\x1b[2K") && s.length > 5);
  t.ok(
    // eslint-disable-next-line no-control-regex -- the escape that clears the terminal's line is what is checked
    progress.some((s) => /^\r\x1b\[2K(queued|running) \d+s: /.test(s)),
    `a line while it runs: ${JSON.stringify(progress[0])}`,
  );
  t.equal(err.at(-1), "\r\x1b[2K", "the line is cleared before the summary");
  t.match(out.join("\n"), /: succeeded \(resizeServerGroup\)/);
});

t.test("the command asks for strict handling: a field the service would not read is refused, named", async (t) => {
  const body = JSON.stringify({ credentials: "demo", region: "eastus", serverGroupName: "batch-v001", capcity: 1 });
  const run = await cli(["op", "scaleDown", "--body", body, "--dry-run"]);
  t.equal(run.code, 2, run.stdout);
  t.match(run.stderr, /400 ValidationError: capcity: is not a field of scaleDown[^\n]*did you mean capacity\?/);
});
