// Fields the service does not read are never passed over in silence: every operation names them in its 202 answer
// (ignoredFields), in the task's history and in a dry run; `Prefer: handling=strict` (RFC 7240) makes them a 400
// naming each one. Orca's and Deck's own fields are known and not reported (src/api/ignored-fields.ts); the Orca
// contract tests (testkit/orca.ts) check that its exact bodies produce no ignored field.
import t from "tap";
import { Type } from "@sinclair/typebox";
import {
  ignoredFieldProblems,
  ignoredFields,
  ORCA_UNREAD_FIELDS,
  prefersStrictHandling,
} from "../src/api/ignored-fields.ts";
import { readFile } from "node:fs/promises";
import { operations } from "../src/operations/registry.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { demo, startTestEnv } from "./helpers/service.ts";

void t.test("Prefer: handling=strict, as RFC 7240 writes preferences", (t) => {
  for (const header of [
    "handling=strict",
    "HANDLING=Strict",
    'handling="strict"',
    "respond-async, handling=strict",
    "respond-async; wait=10, handling=strict",
    ["return=minimal", "handling=strict"],
    "handling=strict, handling=lenient",
  ])
    t.ok(prefersStrictHandling(header), `strict: ${JSON.stringify(header)}`);
  for (const header of [
    undefined,
    "",
    "handling=lenient",
    "handling",
    "return=minimal",
    "handling=lenient, handling=strict",
    "x-handling=strict",
  ])
    t.notOk(prefersStrictHandling(header), `not strict: ${JSON.stringify(header)}`);
  t.end();
});

void t.test(
  "the fields a schema leaves unread, in nested objects, arrays and unions, as the client named them",
  (t) => {
    const schema = Type.Object(
      {
        capacity: Type.Object({ min: Type.Integer() }, { additionalProperties: false }),
        image: Type.Optional(Type.Object({ publisher: Type.String() }, { additionalProperties: true })),
        disks: Type.Optional(Type.Array(Type.Object({ lun: Type.Integer() }, { additionalProperties: true }))),
        size: Type.Optional(Type.Union([Type.Integer(), Type.Object({ percent: Type.Integer() })])),
        tags: Type.Optional(Type.Record(Type.String({ pattern: "^[a-z]+$" }), Type.String())),
      },
      { additionalProperties: true },
    );
    const found = ignoredFields(schema, {
      capacity: { min: 1 },
      capcity: 3,
      image: { publisher: "Canonical", publsher: "x", region: "eastus" },
      disks: [{ lun: 0 }, { lun: 1, caching: "None" }],
      size: { percent: 5, extra: true },
      cloudProvider: "azure",
      tags: { owner: "me" },
    });
    t.same(
      found.map((f) => f.field),
      ["capcity", "image.publsher", "disks[1].caching", "size.extra"],
      "Orca's cloudProvider and Deck's image.region are known; everything else unread is named",
    );
    t.same(
      ignoredFieldProblems(found.slice(0, 2), "resizeServerGroup").map(
        (p) => `${p.field}: ${p.message.split("; ")[1]}`,
      ),
      ["capcity: did you mean capacity?", "image.publsher: did you mean publisher?"],
    );
    t.same(
      ignoredFields(schema, { capacity: { min: 1 }, nme: 1 }, "[0].resizeServerGroup").map((f) => f.field),
      ["[0].resizeServerGroup.nme"],
      "a list body's fields carry their item's prefix",
    );
    t.match(
      ignoredFieldProblems([{ field: "zzz", known: ["capacity", "image"] }], "op")[0].message,
      /the fields here are capacity, image$/,
      "no close name: the fields it does take",
    );
    t.end();
  },
);

// A field may be read by one operation and sent unread to others (Deck's asgName is the instance stages' server
// group, and rides along on every other stage): the list holds those, and an operation's own schema wins. What it
// must never hold is a field every operation reads.
void t.test("no field Orca sends unread is one every operation reads", (t) => {
  const schemas = [...operations.values()].map((op) => new Set(Object.keys(op.schema.properties ?? {})));
  t.same(
    [...ORCA_UNREAD_FIELDS.keys()].filter((k) => schemas.every((declared) => declared.has(k))),
    [],
    "a field every operation reads is not listed as Orca's unread one",
  );
  t.end();
});

const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());

const IMAGE = { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" };
/** A valid body for each operation route, against the seeded demo. */
const BODIES: Record<string, Record<string, unknown>> = {
  resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 5, desired: 3 } }),
  disableServerGroup: demo("web-prod-v001"),
  enableServerGroup: demo("web-prod-v001"),
  scaleDown: demo("batch-v001"),
  terminateInstances: demo("batch-v001", { instanceIds: ["0"] }),
  terminateInstanceAndDecrementServerGroup: demo("batch-v001", { instance: "0", adjustMinIfNecessary: true }),
  rebootInstances: demo("batch-v001", { instanceIds: ["0"] }),
  destroyServerGroup: demo("batch-v001"),
  rollingUpgrade: demo("web-prod-v002", { image: IMAGE }),
  createServerGroup: {
    credentials: "demo",
    region: "eastus",
    application: "ignored",
    stack: "prod",
    image: IMAGE,
    sku: { name: "Standard_D2s_v3" },
    vnet: "demo-rg-vnet",
    subnet: "default",
    capacity: { min: 1, max: 2, desired: 1 },
  },
  cloneServerGroup: {
    credentials: "demo",
    region: "eastus",
    source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v002" },
    // Strict handling refuses a clone that leaves unsaid what Azure never returns (the source's custom data).
    osConfig: { customData: "" },
  },
  scaleDownCluster: { credentials: "demo", cluster: "web-prod", regions: ["eastus"] },
  disableCluster: { credentials: "demo", cluster: "web-prod", regions: ["eastus"] },
};
/** What these tests read of an answer: a TaskRef, a DryRun, an ErrorResponse. */
interface Answer {
  id: string;
  error?: string;
  message?: string;
  ignoredFields?: string[];
  details: { field: string; message: string }[];
}

interface TaskAnswer {
  history: { phase: string; status: string }[];
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await env.service.app.inject({
    method: "POST",
    url: path,
    headers: { "content-type": "application/json", ...headers },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, body: res.json<Answer>() };
}

/** The operations a list body may name (the cluster-wide ones are routes of their own only). */
const LISTED = new Set(operations.keys());

void t.test("every operation route serves its own body as is", (t) => {
  const routes = [...operations.keys(), "scaleDownCluster", "disableCluster"].sort();
  t.same(Object.keys(BODIES).sort(), routes, "a body for every operation route");
  t.end();
});

void t.test("the document declares Prefer on exactly the routes tested here", async (t) => {
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8")) as {
    paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>>;
  };
  const declaring = Object.entries(document.paths)
    .filter(([, item]) =>
      Object.values(item).some((op) => op.parameters?.some((p) => p.$ref === "#/components/parameters/Prefer")),
    )
    .map(([path]) => path);
  t.same(
    declaring.sort(),
    [...Object.keys(BODIES).map((op) => `/azure/ops/${op}`), "/azure/ops"].sort(),
    "each route that honours Prefer: handling=strict, and no other",
  );
});

for (const [operation, body] of Object.entries(BODIES)) {
  void t.test(`${operation}: unread fields named; strict makes them a 400`, async (t) => {
    const path = `/azure/ops/${operation}`;
    const unread = { ...body, capcity: 3, cloudProvider: "azure", moniker: { app: "web" } };

    const strict = await post(path, unread, { prefer: "handling=strict" });
    t.equal(strict.status, 400, JSON.stringify(strict.body));
    t.equal(strict.headers["preference-applied"], "handling=strict", "the answer says strict handling was applied");
    t.match(strict.body, { error: "ValidationError", message: /capcity/ });
    t.same(
      strict.body.details.filter((d: { field: string }) => d.field === "capcity").length,
      1,
      `capcity is named: ${JSON.stringify(strict.body.details)}`,
    );
    t.notOk(
      strict.body.details.some((d: { field: string }) => ["cloudProvider", "moniker"].includes(d.field)),
      "Orca's own fields are known, strict or not",
    );

    {
      const dry = await post(`${path}?dryRun=true`, unread);
      t.equal(dry.status, 200, JSON.stringify(dry.body));
      t.same(dry.body.ignoredFields, ["capcity"], "the dry run names it");
      const clean = await post(`${path}?dryRun=true`, body, { prefer: "handling=strict" });
      t.equal(clean.status, 200, `a strict request with nothing unread goes through: ${JSON.stringify(clean.body)}`);
      t.equal(clean.headers["preference-applied"], "handling=strict");
      t.same(clean.body.ignoredFields, []);
    }

    if (LISTED.has(operation)) {
      // The same description as an item of Clouddriver's list body: named by item and operation.
      const field = `[0].${operation}.capcity`;
      const strictList = await post("/azure/ops", [{ [operation]: unread }], { prefer: "handling=strict" });
      t.equal(strictList.status, 400, JSON.stringify(strictList.body));
      t.equal(strictList.headers["preference-applied"], "handling=strict");
      t.same(
        strictList.body.details.map((d) => d.field),
        [field],
        `in a list body, strict handling names ${field}, and not Orca's fields: ${JSON.stringify(strictList.body.details)}`,
      );
      const dryList = await post("/azure/ops?dryRun=true", [{ [operation]: unread }]);
      t.equal(dryList.status, 200, JSON.stringify(dryList.body));
      t.same(dryList.body.ignoredFields, [field], "a list body's dry run names it");
    }

    const accepted = await post(path, unread);
    t.equal(accepted.status, 202, JSON.stringify(accepted.body));
    t.same(accepted.body.ignoredFields, ["capcity"], "the 202 names it");
    t.notOk(accepted.headers["preference-applied"], "no preference, none applied");
    const task = (await env.api<TaskAnswer>("GET", `/task/${accepted.body.id}`)).body;
    t.ok(
      task.history.some((h: { status: string }) => /^ignored: capcity\b/.test(h.status)),
      `the task's history says so: ${JSON.stringify(task.history)}`,
    );
    await env.waitForTask(accepted.body.id, 60_000);
  });
}

void t.test("a list body: each item's unread fields, named by item and operation", async (t) => {
  const body = [
    { disableServerGroup: { ...demo("web-prod-v001"), capcity: 1 } },
    { enableServerGroup: { ...demo("web-prod-v001"), accountName: "demo", asgName: "web-prod-v001" } },
  ];
  const strict = await post("/azure/ops", body, { prefer: "handling=strict" });
  t.equal(strict.status, 400);
  t.same(
    strict.body.details.map((d: { field: string }) => d.field),
    ["[0].disableServerGroup.capcity"],
  );
  const dry = await post("/azure/ops?dryRun=true", body);
  t.same(dry.body.ignoredFields, ["[0].disableServerGroup.capcity"]);
  const accepted = await post("/azure/ops", body);
  t.equal(accepted.status, 202);
  t.same(accepted.body.ignoredFields, ["[0].disableServerGroup.capcity"]);
  const task = (await env.waitForTask(accepted.body.id)) as TaskAnswer;
  t.equal(task.history[0].status, "ignored: [0].disableServerGroup.capcity (not read by this service)");
});

void t.test("a body with nothing unread: an empty ignoredFields, and no history line", async (t) => {
  const accepted = await post("/azure/ops/enableServerGroup", BODIES.enableServerGroup);
  t.equal(accepted.status, 202);
  t.same(accepted.body.ignoredFields, []);
  const task = (await env.waitForTask(accepted.body.id)) as TaskAnswer;
  t.notOk(task.history.some((h: { status: string }) => h.status.startsWith("ignored:")));
});

void t.test("a misspelling under strict handling says what was meant", async (t) => {
  const res = await post(
    "/azure/ops/scaleDown",
    { ...demo("batch-v001"), capcity: { min: 0, max: 1, desired: 1 } },
    { prefer: "handling=strict" },
  );
  t.equal(res.status, 400);
  t.match(res.body.details, [{ field: "capcity", message: /did you mean capacity\?$/ }]);
});

// Orca's own fields are known, not unknown: its exact bodies go through strict handling too, with nothing named.
// TargetServerGroup.toClouddriverOperationPayload (orca TargetServerGroup.java l.136-160), and the resize stage's
// whole context (ResizeServerGroupTask.groovy l.63-84), as test/orca-input.test.ts replays them.
void t.test("Orca's exact bodies leave nothing unread, strict or not", async (t) => {
  const target = (name: string) => ({
    credentials: "demo",
    accountName: "demo",
    serverGroupName: name,
    asgName: name,
    cloudProvider: "azure",
    region: "eastus",
  });
  const resizeContext = {
    ...target("web-prod-v001"),
    type: "resizeServerGroup",
    action: "scale_exact",
    resizeType: null,
    scalePct: null,
    scaleNum: null,
    target: "current_asg_dynamic",
    targetLocation: { type: "REGION", value: "eastus" },
    regions: ["eastus"],
    moniker: { app: "web", stack: "prod", cluster: "web-prod", sequence: 1 },
    interestingHealthProviderNames: null,
    cloudProviderType: "azure",
    user: "deploy-bot@example.com",
    resourceGroup: null,
    account: null,
    targetSize: null,
    capacity: { min: 1, max: 6, desired: 4 },
    originalCapacity: { min: 3, max: 3, desired: 3 },
  };
  const bodies: [string, unknown][] = [
    ["/azure/ops/resizeServerGroup", resizeContext],
    ["/azure/ops", [{ resizeServerGroup: { ...target("web-prod-v001"), capacity: { min: 0, max: 0, desired: 0 } } }]],
    ["/azure/ops", [{ disableServerGroup: { ...target("web-prod-v001"), desiredPercentage: null } }]],
    ["/azure/ops", [{ enableServerGroup: target("web-prod-v001") }]],
    ["/azure/ops", [{ destroyServerGroup: target("batch-v001") }]],
    // The clone stage's context whole (CloneServerGroupTask.groovy l.53-54, l.100), its source named as Orca names it
    // (SourceResolver.groovy l.122: asgName and serverGroupName; DetermineSourceServerGroupTask.groovy l.71: asgName).
    [
      "/azure/ops",
      [
        {
          cloneServerGroup: {
            credentials: "demo",
            region: "eastus",
            cloudProvider: "azure",
            source: { account: "demo", region: "eastus", asgName: "web-prod-v001" },
            // Deck's custom data field (osConfig.customData): under strict handling a clone must say it, since Azure
            // never returns the source's (clone-copies-source.test.ts).
            osConfig: { customData: "" },
          },
        },
      ],
    ],
    [
      "/azure/ops",
      [
        {
          cloneServerGroup: {
            credentials: "demo",
            region: "eastus",
            cloudProvider: "azure",
            source: { account: "demo", region: "eastus", asgName: "web-prod-v001", serverGroupName: "web-prod-v001" },
            osConfig: { customData: "" },
          },
        },
      ],
    ],
  ];
  for (const [path, body] of bodies)
    for (const headers of [{}, { prefer: "handling=strict" }] as Record<string, string>[]) {
      const res = await post(`${path}?dryRun=true`, body, headers);
      t.equal(res.status, 200, `${path} ${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`);
      t.same(res.body.ignoredFields, [], `${path} ${JSON.stringify(headers)}: nothing named`);
    }
});

void t.test(
  "a clone's source named by neither serverGroupName nor asgName, or by two names: a 400 naming the field",
  async (t) => {
    const clone = (source: Record<string, unknown>) => [
      {
        cloneServerGroup: {
          credentials: "demo",
          region: "eastus",
          source: { account: "demo", region: "eastus", ...source },
        },
      },
    ];
    const none = await post("/azure/ops?dryRun=true", clone({}), {});
    t.equal(none.status, 400, JSON.stringify(none.body));
    t.match(JSON.stringify(none.body.details), /source\.serverGroupName/);
    const two = await post(
      "/azure/ops?dryRun=true",
      clone({ asgName: "web-prod-v001", serverGroupName: "web-prod-v002" }),
      {},
    );
    t.equal(two.status, 400, JSON.stringify(two.body));
    t.match(
      JSON.stringify(two.body.details),
      /source\.asgName[^}]*names web-prod-v001, but source\.serverGroupName names web-prod-v002/,
    );
  },
);
