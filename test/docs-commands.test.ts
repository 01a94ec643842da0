// Every command in docs/*.md: each page's ```sh blocks run in order, as written (only the ports swapped), after the
// README's helpers (call, submit, wait_task, run: the first block of its Try it), against a fresh
// `node src/server.ts` demo of its own; blocks fenced ```shell cannot run here (real Azure, Kubernetes,
// Docker, long-running processes) and are counted. A page whose commands another test runs says so in its first
// lines: <!-- commands: run by test/<file>.test.ts -->, and that file must name the page.
import t from "tap";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../testkit/child-service.ts";
import { fences, looksLikeCommands, runBlocks, section, startDemo } from "./helpers/doc-commands.ts";

// Five fresh services, one after another, each running a page as a reader would: minutes on a loaded machine.
t.setTimeout(30 * 60_000);
const DOCS = join(REPO, "docs");
const pages = readdirSync(DOCS)
  .filter((f) => f.endsWith(".md"))
  .sort();
const helpers = fences(section(readFileSync(join(REPO, "README.md"), "utf8"), "Try it")).find(
  (f) => f.lang === "sh",
)!.body;
t.match(helpers, /^wait_task\(\)/m, "the README's first Try it block defines the helpers");

/** What each page's run must show, beyond exiting 0 with no 5xx. */
const EXPECT: Record<string, [RegExp, string][]> = {
  "deploying.md": [
    [
      /for 50 % \(0 of 2 out already, 1 wanted[\s\S]*"instanceIdsToDisable":\["flex-prod-v000_[^"]+"\][\s\S]*flex-prod-v000 VMs in the pool: 1\n[\s\S]*flex-prod-v000 VMs in the pool: 2\n/,
      "a partial disable of a Flexible group: half of it out of the load balancer's pool, then all of it back",
    ],
    [/\{"name":"createServerGroup","enabled":true\}/, "GET /features/stages answers Orca's planning"],
    [/"serverGroupName":"shop-web-v000"[^\n]*"disabled":false/, "Deck's pipeline body deploys a group that serves"],
    [
      /\[ '1', '2' \] SystemAssigned, UserAssigned Spot \{ enabled: true, gracePeriod: 'PT15M' \} \[ '1', '2' \]/,
      "a create with zones, an identity, Spot and repairs: the scale set holds them, its VMs in both zones",
    ],
    [
      /serverGroupName not given: spot-v001, read from the VM name\(s\) and confirmed on Azure[^\n]*Azure reports instance\(s\) 0 running again after the restart/,
      "Deck's one-instance rebootInstances: located by the VM's name, the restart confirmed from what Azure reports",
    ],
    [
      /serverGroupName not given: web-prod-v001, read from the VM name\(s\)[^\n]*delete instance\(s\) 2 \(capacity 3 → 2, then back to 3\)[^\n]*restore capacity 2 → 3/,
      "Deck's one-instance terminateInstances: located by the VM's name, the VM deleted and replaced",
    ],
    [
      /^3 \[ 'web-prod-v001_0', 'web-prod-v001_1', 'web-prod-v001_3' \]$/m,
      "the simulator holds the scale set at its capacity, a new VM in place of the one terminated",
    ],
    [
      /record min 2 and max 2 for the size after instance web-prod-v001_1 is deleted \(3 → 2\)[^\n]*delete instance\(s\) 1 \(capacity 3 → 2\)/,
      "Deck's terminateInstanceAndDecrementServerGroup: the bounds recorded, then the VM deleted",
    ],
    [/^2 2 2 \[ 'web-prod-v001_0', 'web-prod-v001_3' \]$/m, "the simulator holds one VM fewer, its bounds recorded"],
    [
      /\[ '1', '2' \] SystemAssigned, UserAssigned Spot \{ enabled: true, gracePeriod: 'PT15M' \} \{ rules: \[ 'OldestVM' \] \}/,
      "the clone holds its source's zones, identity, Spot, repairs and scale-in policy",
    ],
    [
      /"pools":\[\{"name":"shop-web-v000","members":\[[^\n]*"serving":2\}\],"serving":2\}/,
      "both instances serve from the group's own pool",
    ],
  ],
  "examples.md": [
    [/"field":"capacity"|"completed":true/, "tasks completed"],
    [
      /Waiting for task [0-9a-f-]+ on scale set [^"]*\/web-prod-v001 to finish: one operation at a time per scale set, in submission order/,
      "our own tasks take turns",
    ],
    [
      /web-prod-v002 is Updating \(another write in flight\); waiting for it to end before planning/,
      "another tool's write is waited out",
    ],
    [/409 ConflictingConcurrentWriteNotAllowed, retrying in/, "the fault example shows the retries"],
    [/"status":409,"ifMatch":"\\"\d+\\""/, "the call log shows conditional writes"],
    [/"owner":"portal-user"/, "the out-of-band tag survived the 412"],
    [/x-azure-read-at: \d{4}-/i, "Orca's reads state their freshness"],
    [/"clusters":\{"demo":\[\{"name":"web-prod"/, "the application lists its clusters"],
    [/"confirmedBy":"GET 404 ResourceNotFound"/, "a second destroy is a success"],
    [/"state":"canceled"/, "the queued task was canceled"],
    [/"dryRun":true/, "the dry run answers its plan"],
  ],
  "api.md": [
    [
      /"method":"PATCH","path":"\/subscriptions\/[^"]+\/virtualMachineScaleSets\/web-prod-v001\?api-version=\d{4}-\d{2}-\d{2}"/,
      "the dry run's request, with its api-version",
    ],
    [
      /\{"path":"sku\.capacity","propertyChangeType":"Modify","before":3,"after":4\}/,
      "the dry run's change, field by field",
    ],
  ],
  "cli.md": [
    [/task [0-9a-f-]+: succeeded \(resizeServerGroup\)\n/, "a resize waited for"],
    [/^resizeServerGroup: would set capacity/m, "the dry run's plan"],
    [/"cause":"ResourceNotFound"\nexit status 1/, "--json and the failed task's status"],
    [
      / {2}RESIZE_SERVER_GROUP\s+Done: web-prod-v001 has capacity 3[^\n]*\n {2}ORCHESTRATION\s+Orchestration completed\.\ntask [0-9a-f-]+: succeeded/,
      "--follow ends with the outcome",
    ],
    [/"state":"canceled"/, "the queued task was canceled"],
    [
      /409 TaskNotRetryable[\s\S]*exit status 2|exit status 2[\s\S]*409 TaskNotRetryable/,
      "a task that cannot succeed again is not resumed",
    ],
    [/demo\s+eastus\s+web-prod-v001\s+enabled\s+capacity 3/, "the server groups"],
    [/^account demo: OK/m, "doctor on the demo"],
    [
      /cost: at most 2\.5 instance-hours of Standard_B1ls[^\n]*\nvmss-ops conformance: nothing was done; run it again with --yes/,
      "conformance without --yes",
    ],
    [/vmss-ops conformance: refused: demo-rg holds \d+ resource\(s\) no conformance run made/, "a used group refused"],
    [
      /exit status 1\n {2}FAIL {2}permissions on demo-rg +missing 1 of \d+ actions: Microsoft.Compute\/virtualMachineScaleSets\/write/,
      "doctor's FAIL",
    ],
    [
      /400 ValidationError: capcity: is not a field of scaleDown[^\n]*did you mean capacity\?\nexit status 2/,
      "a field the service would not read is refused under strict handling",
    ],
  ],
  "troubleshooting.md": [
    [/"field":"capacity\.min"|capacity/, "the 400 names the field"],
    [/"statusCode":415/, "the wrong content type"],
    [/"statusCode":400,"error":"InvalidCursor"/, "a cursor that does not decode"],
    [/"cause":"ResourceNotFound"/, "the failed task's cause"],
  ],
};

let shown = 0;
for (const page of pages) {
  const text = readFileSync(join(DOCS, page), "utf8");
  const blocks = fences(text);
  t.same(
    blocks.filter((b) => b.lang === "" && looksLikeCommands(b.body)).map((b) => b.body.split("\n")[0]),
    [],
    `${page}: no commands hidden in a block without a language`,
  );
  t.same(
    blocks.filter((b) => ["bash", "console", "shell-session", "zsh"].includes(b.lang)).map((b) => b.lang),
    [],
    `${page}: commands are fenced sh (run) or shell (shown)`,
  );
  shown += blocks.filter((b) => b.lang === "shell").length;
  const runnable = blocks.filter((b) => b.lang === "sh").map((b) => b.body);
  if (runnable.length === 0) continue;
  const elsewhere = text.slice(0, 400).match(/<!-- commands: run by (test\/[\w.-]+\.test\.ts) -->/);
  if (elsewhere) {
    t.ok(
      existsSync(join(REPO, elsewhere[1])) && readFileSync(join(REPO, elsewhere[1]), "utf8").includes(page),
      `${page}: ${elsewhere[1]} runs its commands`,
    );
    continue;
  }
  t.test(`${page}: its ${runnable.length} command block(s), as written`, async (t) => {
    const demo = await startDemo({ env: { SIMULATOR_WRITE_DURATION_MS: "300" } });
    t.teardown(() => demo.stop());
    const run = runBlocks([helpers, ...runnable], demo);
    // The service's own output too: a command that cannot reach it (ECONNREFUSED) says only that it is gone, not why.
    if (run.status !== 0) t.comment(`${run.out}\n--- the demo service's output ---\n${demo.output()}`);
    t.equal(run.status, 0, "the commands exit 0");
    t.notMatch(run.out, /"statusCode":5\d\d/, "no 5xx");
    for (const [pattern, what] of EXPECT[page] ?? []) t.match(run.out, pattern, what);
  });
}
t.comment(
  `${shown} block(s) fenced shell: shown, not run here (real Azure, Kubernetes, Docker, long-running processes)`,
);
t.ok(shown > 0, "the blocks that cannot run here are marked, and counted");
