// The README's "Try it" commands, run as written (only the two ports are swapped for free ones) against the
// service started the way `npm start` starts it: a child process with the embedded simulator.
import t from "tap";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./helpers/child-service.ts";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(REPO, "README.md"), "utf8");

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

const blocks = shellBlocks(section(readme, "Try it"));
// docs/deploying.md's "Try it" runs after the README's, with its helpers.
const deploying = shellBlocks(section(readFileSync(join(REPO, "docs", "deploying.md"), "utf8"), "Try it"));
t.ok(blocks.length >= 6, `the Try it section has its command blocks (${blocks.length})`);

const quickstart = shellBlocks(section(readme, "Quickstart")).join("\n");
t.match(quickstart, /npm install && npm start/, "quickstart runs the service");
t.match(quickstart, /npm install && npm test/, "quickstart runs the tests");

const [apiPort, simPort] = [await freePort(), await freePort()];
const child = spawn(process.execPath, ["src/server.ts"], {
  cwd: REPO,
  // A fresh data directory: a fresh service, as on a fresh clone.
  env: { ...process.env, PORT: String(apiPort), SIMULATOR_PORT: String(simPort), SIMULATOR_WRITE_DURATION_MS: "300", LOG_LEVEL: "warn", DATA_DIR: mkdtempSync(join(tmpdir(), "vmss-ops-readme-")) },
  stdio: ["ignore", "pipe", "pipe"],
});
let serviceOutput = "";
child.stdout.on("data", (d) => (serviceOutput += d));
child.stderr.on("data", (d) => (serviceOutput += d));
t.teardown(() => {
  child.kill("SIGTERM");
});

await new Promise<void>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`service did not start:\n${serviceOutput}`)), 30_000);
  const check = () => {
    if (serviceOutput.includes("vmss-ops listening on")) {
      clearTimeout(timer);
      resolve();
    } else setTimeout(check, 50);
  };
  child.on("exit", (code) => reject(new Error(`service exited with ${code}:\n${serviceOutput}`)));
  check();
});

t.test("npm start prints how to call it", async (t) => {
  t.match(serviceOutput, `http://127.0.0.1:${apiPort}`);
  t.match(serviceOutput, /curl -s -X POST .*\/azure\/ops\/resizeServerGroup/);
  t.match(serviceOutput, `/_sim`);
});

t.test("the README's commands work as written", async (t) => {
  const script = ["set -euo pipefail", ...blocks, ...deploying]
    .join("\n")
    .replaceAll("127.0.0.1:7002", `127.0.0.1:${apiPort}`)
    .replaceAll("127.0.0.1:7003", `127.0.0.1:${simPort}`);
  const run = spawnSync("bash", ["-c", script], { cwd: REPO, encoding: "utf8", timeout: 120_000 });
  const out = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) t.comment(out);
  t.equal(run.status, 0, "the script exits 0");
  t.notMatch(out, /"statusCode":5\d\d/, "no 5xx anywhere");
  t.notMatch(out, /"failed":true/, "no task failed");
  const completed = out.match(/"completed":true/g)?.length ?? 0;
  t.ok(completed >= 11, `every waited-for task completed (${completed})`);
  t.match(out, /"field":"serverGroupName"/, "the bad-input example names the field");
  t.match(out, /Waiting for task [0-9a-f-]+ on scale set [^"]*\/web-prod-v001 to finish: one operation at a time per scale set, in submission order/, "our own tasks take turns");
  t.match(out, /web-prod-v002 is Updating \(another write in flight\); waiting for it to end before planning/, "another tool's write is waited out");
  t.match(out, /409 ConflictingConcurrentWriteNotAllowed, retrying in/, "the fault example shows the retries");
  t.match(out, /"status":409,"ifMatch":"\\"\d+\\""/, "the call log shows conditional writes");
  const ids = [...out.matchAll(/"resourceUri":"\/task\/([^"]+)"/g)].map((m) => m[1]);
  t.ok(ids.length >= 2 && ids[0] === ids[1], "clientRequestId returned the same task");
  t.match(out, /"owner":"portal-user"/, "the out-of-band tag survived the 412");
  t.match(out, /x-azure-read-at: \d{4}-/i, "Orca's reads state their freshness");
  t.match(out, /"clusters":\{"demo":\[\{"name":"web-prod"/, "the application lists its clusters");
  t.match(out, /"serverGroupNames":\["eastus:shop-prod-v001"\]/, "the clone is the next server group of its cluster");
  t.notMatch(out, /shop-prod-v002/, "the repeated clientRequestId created nothing");
  t.match(out, /"name":"shop-prod-v001"/, "the red/black leaves shop-prod-v001");
  t.match(out, /batch 2\/2: surged 2, replaced 2, healthy 4\/4: delete out-of-date instance\(s\) 2, 3/, "the rolling upgrade's batches");
  t.match(out, /4 "latestModelApplied":true/, "every instance on the new model");
  t.ok(deploying.length >= 2, "docs/deploying.md has its command blocks");
  t.match(out, /\{"name":"createServerGroup","enabled":true\}/, "GET /features/stages answers Orca's planning");
  t.match(out, /"serverGroupName":"shop-web-v000"[^\n]*"disabled":false/, "Deck's pipeline body deploys a group that serves");
  t.match(out, /"pools":\[\{"name":"shop-web-v000","members":\[[^\n]*"serving":2\}\],"serving":2\}/, "both instances serve from the group's own pool");
});

t.test("what the README promises about the end state", async (t) => {
  const res = await fetch(`http://127.0.0.1:${apiPort}/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001`);
  const sg = (await res.json()) as { capacity: { desired: number }; disabled: boolean; instances: unknown[] };
  t.equal(sg.capacity.desired, 0, "the race ended at capacity 0");
  t.equal(sg.instances.length, 0);
  t.equal(sg.disabled, true);
});
