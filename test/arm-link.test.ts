// This replica's link to Azure: the judgement (a pure function, by table), what a call past its deadline is (a network
// failure, retried), and the policy on the real client against a link that answers nothing and one that answers.
import t from "tap";
import { createServer, type Socket } from "node:net";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import {
  ArmCallTimeoutError,
  ArmLink,
  armCallDeadlineMs,
  judgeArmLink,
  type ArmLinkFacts,
} from "../src/azure/arm-link.ts";
import { describeArmFailure, failureLabel } from "../src/azure/arm-failure.ts";
import { isRetryableKind } from "../src/azure/retry-policy.ts";
import { createComputeClient, SimulatorCredential } from "../src/azure/client.ts";
import type { AccountConfig } from "../src/azure/account-config.ts";
import { loadConfig } from "../src/startup-config.ts";

const bounds = { failuresToStopClaiming: 3, releaseAfterMs: 10_000 };

t.test(
  "the judgement: claims stop after N calls in a row without an answer, tasks go back past the bound",
  async (t) => {
    const at = 1_000_000;
    const table: [string, ArmLinkFacts, number, { state: string; claim: boolean; release: boolean }][] = [
      [
        "every call answered",
        { unansweredInARow: 0, unansweredSinceMs: undefined },
        at,
        { state: "up", claim: true, release: false },
      ],
      [
        "one call unanswered",
        { unansweredInARow: 1, unansweredSinceMs: at },
        at,
        { state: "up", claim: true, release: false },
      ],
      [
        "two in a row, long ago",
        { unansweredInARow: 2, unansweredSinceMs: at - 60_000 },
        at,
        { state: "up", claim: true, release: false },
      ],
      [
        "three in a row, just now",
        { unansweredInARow: 3, unansweredSinceMs: at },
        at,
        { state: "doubtful", claim: false, release: false },
      ],
      [
        "three in a row, just under the bound",
        { unansweredInARow: 3, unansweredSinceMs: at - 9_999 },
        at,
        { state: "doubtful", claim: false, release: false },
      ],
      [
        "three in a row, at the bound",
        { unansweredInARow: 3, unansweredSinceMs: at - 10_000 },
        at,
        { state: "cut", claim: false, release: true },
      ],
      [
        "forty in a row, a minute",
        { unansweredInARow: 40, unansweredSinceMs: at - 60_000 },
        at,
        { state: "cut", claim: false, release: true },
      ],
      [
        "a count without a start (never made so)",
        { unansweredInARow: 5, unansweredSinceMs: undefined },
        at,
        { state: "up", claim: true, release: false },
      ],
    ];
    for (const [what, facts, now, expected] of table) t.same(judgeArmLink(facts, now, bounds), expected, what);
    t.same(
      judgeArmLink({ unansweredInARow: 1, unansweredSinceMs: at }, at, {
        failuresToStopClaiming: 1,
        releaseAfterMs: 0,
      }),
      { state: "cut", claim: false, release: true },
      "bounds of 1 and 0: the first call unanswered hands everything back",
    );
  },
);

t.test("what the link remembers: an answer clears the calls that got none", async (t) => {
  const link = new ArmLink({ readTimeoutMs: 1000, writeTimeoutMs: 2000, ...bounds });
  const changes: string[] = [];
  link.onChange = (c) => changes.push(c.state);
  link.unanswered("ArmCallTimeout", 100);
  link.unanswered("ECONNRESET", 200);
  link.unanswered("ArmCallTimeout", 300);
  t.same(link.facts, { unansweredInARow: 3, unansweredSinceMs: 100 }, "counted from the first");
  t.equal(link.judge(10_099).state, "doubtful");
  t.equal(link.judge(10_100).state, "cut");
  link.answered(20_000);
  t.same(link.facts, { unansweredInARow: 0, unansweredSinceMs: undefined });
  t.equal(link.judge(20_000).claim, true, "claims again");
  t.same(changes, ["unanswered", "answered"], "told once when answers stop, once when they come back");
});

t.test("a call past its deadline: a network failure, retried like one; deadlines by kind", async (t) => {
  const f = describeArmFailure(new ArmCallTimeoutError("GET", 1000));
  t.equal(f.kind, "network");
  t.equal(f.code, "ArmCallTimeout");
  t.ok(isRetryableKind(f.kind), "retryable");
  t.equal(failureLabel(f), "network error ArmCallTimeout");
  const config = { readTimeoutMs: 10_000, writeTimeoutMs: 30_000 };
  t.equal(armCallDeadlineMs("GET", config), 10_000, "a read, a poll of a long-running operation, a probe");
  for (const m of ["PUT", "PATCH", "POST", "DELETE"]) t.equal(armCallDeadlineMs(m, config), 30_000, `${m}: a write`);
});

t.test("the real client: a black-holed endpoint fails within the deadline, counted; an answer clears it", async (t) => {
  const sim = await startSimulator({ port: 0, timeScale: 0.001, seed: false });
  t.teardown(() => sim.close());
  await new SimulatorControl(sim).putScaleSet("demo-rg", "linked", { capacity: 1, loadBalanced: false });
  // Accepts connections and never answers, not even the TLS handshake.
  const sockets = new Set<Socket>();
  const hole = createServer((s) => void sockets.add(s.on("error", () => {})));
  await new Promise<void>((resolve) => hole.listen(0, "127.0.0.1", resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    hole.close();
  });
  const account = (endpoint: string): AccountConfig => {
    const a = loadConfig({ SIMULATOR_URL: sim.url, SIMULATOR_TIME_SCALE: "1" }).accounts[0];
    return { ...a, endpoint, caPem: sim.caPem };
  };
  const link = new ArmLink({ readTimeoutMs: 300, writeTimeoutMs: 600, failuresToStopClaiming: 2, releaseAfterMs: 0 });
  const cut = createComputeClient(
    account(`https://127.0.0.1:${(hole.address() as { port: number }).port}`),
    new SimulatorCredential(),
    undefined,
    "replica-x",
    link,
  );
  const started = performance.now();
  const err = await cut.virtualMachineScaleSets.get("demo-rg", "linked").catch((e: unknown) => e);
  t.type(err, ArmCallTimeoutError, "the read fails on its deadline");
  t.ok(performance.now() - started >= 300, "not before it");
  t.equal(describeArmFailure(err).kind, "network");
  t.same(link.facts.unansweredInARow, 1);
  await cut.virtualMachineScaleSets.get("demo-rg", "linked").catch(() => {});
  t.equal(link.judge().claim, false, "two in a row: no claims");
  const working = createComputeClient(account(sim.url), new SimulatorCredential(), undefined, "replica-x", link);
  const read = await working.virtualMachineScaleSets.get("demo-rg", "linked");
  t.equal(read.name, "linked");
  t.equal(link.judge().claim, true, "an answer: claims again");
  const aborted = new AbortController();
  const gone = cut.virtualMachineScaleSets
    .get("demo-rg", "linked", { abortSignal: aborted.signal })
    .catch((e: unknown) => e);
  aborted.abort();
  t.notOk((await gone) instanceof ArmCallTimeoutError, "a call its caller aborted is not a timeout");
  t.equal(link.facts.unansweredInARow, 0, "and says nothing of the link");
});
