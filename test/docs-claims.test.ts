// Claims the docs make about what the code does, held to the code: each rule is stated once in the source, and
// the docs quote it, or the claim is checked against what the code does.
import t, { type Test as Tap } from "tap";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { kindForStatus, type ArmFailure } from "../src/azure/arm-failure.ts";
import { decideRetry, type RetryConfig, type RetryDecision } from "../src/azure/retry-policy.ts";
import { mergedCapacity, resizeServerGroup } from "../src/operations/resize-server-group.ts";
import { scaleDown } from "../src/operations/scale-down.ts";
import { loadConfig } from "../src/startup-config.ts";
import { parseName, resourceGroupOf, SERVER_GROUP_RESOURCE_GROUP_RULE } from "../src/naming/frigga.ts";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const docs = ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));
/** A doc as a reader reads it: code spans as plain words, one space between words. */
const prose = (path: string) => read(path).replace(/`/g, "").replace(/\s+/g, " ");

t.test(
  "where a server group without resourceGroup lives: the code's rule, quoted by the docs and the API",
  async (t) => {
    const account = { defaultResourceGroup: "team-rg" };
    t.equal(resourceGroupOf(account, "web-prod-v001", "East US"), "web-eastus", "{application}-{region}");
    t.equal(
      resourceGroupOf({ ...account, serverGroupResourceGroup: "account" }, "web-prod-v001", "eastus"),
      "team-rg",
      "the account's defaultResourceGroup with serverGroupResourceGroup: account",
    );
    const unconventional = "web prod";
    t.equal(parseName(unconventional), undefined);
    t.equal(resourceGroupOf(account, unconventional, "eastus"), "team-rg", "a name that follows no convention");

    for (const doc of ["docs/api.md", "docs/troubleshooting.md", "docs/orca.md"])
      t.ok(prose(doc).includes(SERVER_GROUP_RESOURCE_GROUP_RULE), `${doc} states the rule as the code does`);
    for (const doc of docs)
      t.notMatch(
        prose(doc),
        /defaultResourceGroup,? (?:or )?else \{application\}|\(default: the account's defaultResourceGroup\)/,
        `${doc} does not put the account's defaultResourceGroup first`,
      );

    const described: string[] = [];
    (function walk(node: unknown): void {
      if (typeof node !== "object" || node === null) return;
      const properties = (node as { properties?: Record<string, { description?: string }> }).properties;
      const field = properties?.resourceGroup?.description;
      if (field !== undefined) described.push(field);
      for (const child of Object.values(node)) walk(child);
    })(JSON.parse(read("openapi/openapi.json")));
    t.ok(described.length >= 2, `the descriptions' resourceGroup fields are described (${described.length})`);
    t.same(
      [...new Set(described.filter((d) => /default/i.test(d)))].filter((d) => d !== SERVER_GROUP_RESOURCE_GROUP_RULE),
      [],
      "every description of resourceGroup that speaks of a default is the rule",
    );
    t.ok(described.includes(SERVER_GROUP_RESOURCE_GROUP_RULE), "openapi/openapi.json carries the rule");
  },
);

const retryConfig: RetryConfig = {
  maxAttempts: 8,
  deadlineMs: 900_000,
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
const failure = (status: number | undefined, retryAfterMs?: number): ArmFailure => ({
  kind: status === undefined ? "network" : kindForStatus(status),
  ...(status !== undefined ? { status } : {}),
  message: "",
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});
const decide = (f: ArmFailure, attempt: number, elapsedMs = 0, random = 0.5) =>
  decideRetry({ failure: f, attempt, elapsedMs, config: retryConfig, random });
const delayOf = (d: RetryDecision) => (d.retry ? d.delayMs : undefined);

/** Each retry rule a doc states (as a reader reads it), with what the code does that makes it true. */
const retryClaims: { docs: string[]; claim: string; holds: (t: Tap) => void }[] = [
  {
    docs: ["docs/api.md"],
    claim: "Backoff doubles from its base up to RETRY_MAX_DELAY_MS, then takes ±20 % jitter.",
    holds: (t) => {
      t.equal(delayOf(decide(failure(409), 3, 0, 0.5)), 800, "200 ms doubling: the third backoff");
      t.equal(delayOf(decide(failure(500), 8, 0, 0.5)), 60_000, "1 s doubling, capped");
      t.equal(delayOf(decide(failure(500), 8, 0, 0)), 48_000, "then jittered: -20 %");
      t.equal(delayOf(decide(failure(500), 8, 0, 0.999_999)), 72_000, "+20 %");
    },
  },
  {
    docs: ["docs/api.md"],
    claim:
      "A Retry-After from Azure is honoured in full, however long: the first retry waits exactly that, a later one the longer of it and the backoff one step behind.",
    holds: (t) => {
      t.equal(delayOf(decide(failure(429, 300_000), 1)), 300_000, "five minutes, past RETRY_MAX_DELAY_MS");
      t.equal(delayOf(decide(failure(503, 1000), 4)), 4000, "the backoff of attempt 3 (1 s doubling), over a 1 s hint");
    },
  },
  {
    docs: ["docs/api.md", "docs/runbook.md"],
    claim: "until the deadline, however many attempts that takes",
    holds: (t) => {
      for (const f of [failure(429), failure(408), failure(500), failure(503), failure(undefined)])
        t.ok(decide(f, 50).retry, `${f.status ?? "network"}: attempt 50 of 8 is retried`);
    },
  },
  {
    docs: ["docs/api.md"],
    claim:
      "409, 412 and an operation that ended Canceled or Failed with a transient code stop after RETRY_MAX_ATTEMPTS attempts.",
    holds: (t) => {
      const kinds = ["conflict", "precondition", "canceled", "operationFailedTransient"] as const;
      for (const kind of kinds) {
        t.ok(decide({ kind, message: "" }, 7).retry, `${kind}: attempt 7 of 8 is retried`);
        t.notOk(decide({ kind, message: "" }, 8).retry, `${kind}: not after attempt 8`);
      }
    },
  },
  {
    docs: ["docs/api.md"],
    claim: "A wait that would end at or after RETRY_DEADLINE_MS since the operation began is not started",
    holds: (t) => {
      t.notOk(decide(failure(429, 60_000), 1, 840_000).retry, "a 60 s wait at 14 min of 15");
      t.ok(decide(failure(429, 59_000), 1, 840_000).retry, "a 59 s one is started");
    },
  },
];

t.test("the retry rules the docs state are what decideRetry does", async (t) => {
  for (const { docs: where, claim, holds } of retryClaims) {
    for (const doc of where) t.ok(prose(doc).includes(claim), `${doc} says: ${claim}`);
    t.test(claim, async (t) => holds(t));
  }
  for (const doc of docs) {
    t.notMatch(prose(doc), /Retry-After[^.]*capped by RETRY_MAX_DELAY_MS/, `${doc}: Retry-After is not capped`);
    t.notMatch(
      prose(doc),
      /until RETRY_MAX_ATTEMPTS or the deadline/,
      `${doc}: 429s do not stop at RETRY_MAX_ATTEMPTS`,
    );
  }
});

t.test("the capacity bounds and the partial disable the docs state are what the operations check", async (t) => {
  const where = { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" };
  const resize = (capacity: { min: number; max: number; desired: number }) =>
    resizeServerGroup.check!({ ...where, capacity });
  const api = prose("docs/api.md");

  t.ok(api.includes("a desired above max is a 400"), "docs/api.md: a desired above max is a 400");
  t.match(resize({ min: 0, max: 3, desired: 4 }), [{ field: "capacity.max" }]);

  t.ok(api.includes("a min above desired is lowered to desired"), "docs/api.md: a min above desired is lowered");
  t.same(resize({ min: 5, max: 9, desired: 2 }), [], "no problem");
  t.same(mergedCapacity({ min: 5, max: 9, desired: 2 }), { min: 2, max: 9, desired: 2 }, "min 5 lowered to 2");
  t.match(resizeServerGroup.describe({ ...where, capacity: { min: 5, max: 9, desired: 2 } }), /min 5 lowered to 2/);
  t.match(
    scaleDown.check!({ ...where, capacity: { min: 1, max: 0, desired: 0 } }),
    [{ field: "capacity.min" }],
    "elsewhere min ≤ desired",
  );

  t.ok(
    api.includes("desiredPercentage below 100") && api.includes("PartialDisableUniform"),
    "docs/api.md: a partial disable takes a share of instances out, and a Uniform set's under Automatic or Rolling is refused",
  );
  for (const doc of docs) {
    t.notMatch(prose(doc), /desiredPercentage[^.|]*accepted and ignored/, `${doc}: desiredPercentage is not ignored`);
    t.notMatch(prose(doc), /0 ≤ min ≤ desired ≤ max/, `${doc}: a resize's min is lowered, not refused`);
  }
});

t.test("what docs/container.md says the image writes is what its environment configures", async (t) => {
  const dockerfile = read("Dockerfile").replace(/\\\n\s*/g, " ");
  const env = Object.fromEntries(
    [...dockerfile.matchAll(/^ENV (.*)$/gm)].flatMap((m) =>
      [...m[1].matchAll(/(\w+)=(\S+)/g)].map((v) => [v[1], v[2]]),
    ),
  );
  const store = loadConfig(env).store;
  const volumes = [...dockerfile.matchAll(/^VOLUME \[(.*)\]$/gm)].flatMap((m) => JSON.parse(`[${m[1]}]`) as string[]);
  t.equal(store.kind, "sqlite", "the image keeps its tasks in SQLite, not in memory as npm start does");
  t.ok(volumes.includes(store.dataDir), `in a volume (${store.dataDir})`);
  const doc = prose("docs/container.md");
  t.ok(doc.includes(`TASK_STORE=${store.kind}`) && doc.includes(`DATA_DIR=${store.dataDir}`), "container.md says so");
  t.notMatch(doc, /writes nothing to disk|exactly as npm start/, "and no longer that it writes nothing");
});
