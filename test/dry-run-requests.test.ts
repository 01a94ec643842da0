// A dry run shows the ARM requests each planned write sends and what it changes (Azure what-if's shape), and the
// real run then sends those requests: for every operation of the registry (its samples, run in the registry's order
// as test/arm-actions.test.ts runs them), the requests the simulator received from the run are the dry run's, method,
// path with api-version, condition and body (secrets censored as the log censors them).
import t from "tap";
import { observeExchanges, type ArmExchange } from "vmss-simulator";
import { operationNames } from "../src/operations/registry.ts";
import { CENSORED, censorSecretsDeep } from "../src/observability/log-redaction.ts";
import { bake, bakeImage, convertServerGroupCommandToDeployConfiguration, deckCommand } from "../testkit/deck.ts";
import { operationSamples, SAMPLE_SCALE_SETS } from "./helpers/operation-samples.ts";
import { newStage, Orca } from "../testkit/orca.ts";
import { demo, demoCreate, startTestEnv, type SimCall } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const PASSWORD_ENV = "DRY_RUN_TEST_VM_PASSWORD";
const PASSWORD = "Dry-run-s3cret!";
process.env[PASSWORD_ENV] = PASSWORD;

const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());

/**
 * A run's task id and clientRequestId in what it wrote (a repairs mark, a create's record of its request) read as a
 * dry run's "(the task)" and "(the request)".
 */
function asPlanned(value: unknown, task: Json): unknown {
  const text = JSON.stringify(value ?? null)
    .replaceAll(task.id as string, "(the task)")
    .replaceAll(task.clientRequestId as string, "(the request)");
  return JSON.parse(text) as unknown;
}

/**
 * The dry run's plan, then the real run of the same description (`operation`: POST /azure/ops/{operation}; a list
 * body: POST /azure/ops), with the writes the simulator received from it.
 */
async function dryThenRun(operation: string | undefined, description: unknown) {
  const route = operation === undefined ? "/azure/ops" : `/azure/ops/${operation}`;
  const dry = await env.api("POST", `${route}?dryRun=true`, description);
  if (dry.status !== 200) throw new Error(`${route} dry run: ${dry.status} ${JSON.stringify(dry.body)}`);
  await env.simControl("DELETE", "/_sim/calls");
  const exchanges: ArmExchange[] = [];
  const stop = observeExchanges((e) => exchanges.push(e));
  let task: Json;
  try {
    const submitted = await env.api("POST", route, description);
    if (submitted.status !== 202) throw new Error(`${route}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
    task = await env.waitForTask(submitted.body.id);
  } finally {
    stop();
  }
  const isWrite = (m: string) => m !== "GET";
  const calls: SimCall[] = (await env.calls()).filter((c) => isWrite(c.method));
  const sent = exchanges
    .filter((e) => isWrite(e.method))
    .map((e, i) => ({
      method: e.method,
      path: `${e.path}?api-version=${e.apiVersion}`,
      ...(calls[i]?.ifMatch || calls[i]?.ifNoneMatch
        ? {
            headers: {
              ...(calls[i].ifMatch ? { "If-Match": calls[i].ifMatch } : {}),
              ...(calls[i].ifNoneMatch ? { "If-None-Match": calls[i].ifNoneMatch } : {}),
            },
          }
        : {}),
      ...(e.requestBody !== undefined ? { body: asPlanned(censorSecretsDeep(e.requestBody), task) } : {}),
    }));
  return { plan: dry.body.operations[0], task, sent, exchanges };
}

/** Kinds of write that change a resource's model (the others act on instances: an upgrade to the model, a restart). */
const CHANGES_A_MODEL = new Set(["update", "create", "delete", "nicPools", "autoscale", "deleteInstances"]);

t.test("every operation of the registry: the dry run's requests are those the run then sends", async (t) => {
  await env.simControl("POST", "/_sim/reset");
  await env.simControl("PUT", `/_sim/scaleSets/${RG}/web-prod-v002/kind`, { automaticRepairs: true });
  for (const [name, body] of Object.entries(SAMPLE_SCALE_SETS))
    await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, body);
  const samples = operationSamples(env.sim.subscriptionId);
  const planned = new Set<string>();
  for (const operation of operationNames()) {
    for (const [i, description] of (samples[operation] ?? []).entries()) {
      const at = `${operation} #${i + 1}`;
      const { plan, task, sent } = await dryThenRun(operation, description);
      t.notOk(task.status.failed, `${at}: the run succeeded (${task.status.status})`);
      if (!plan.write) {
        t.same(sent, [], `${at}: planned no write, and the run sent none`);
        continue;
      }
      planned.add(operation);
      const requests = plan.write.requests as Json[];
      t.ok(requests.length > 0, `${at}: the write has its requests`);
      t.same(
        sent.slice(0, requests.length),
        requests,
        `${at}: the run's first write is the dry run's, request by request`,
      );
      t.equal(requests[0].headers?.["If-Match"], plan.write.ifMatch, `${at}: the condition is the plan's If-Match`);
      t.ok(Array.isArray(plan.write.changes), `${at}: the write carries its changes`);
      if (CHANGES_A_MODEL.has(plan.write.kind))
        t.ok(plan.write.changes.length > 0, `${at}: a ${plan.write.kind} changes a resource`);
      t.ok(Array.isArray(plan.later), `${at}: the writes after it are listed`);
    }
  }
  t.same([...planned], operationNames(), "every operation planned a write on its samples");
});

t.test("a resize: the capacity a Modify, against the scale set as Azure holds it", async (t) => {
  await env.simControl("POST", "/_sim/reset");
  const { plan } = await dryThenRun(
    "resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } }),
  );
  const [change] = plan.write.changes as Json[];
  t.match(change, {
    resourceId: /\/resourceGroups\/demo-rg\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/web-prod-v001$/,
    changeType: "Modify",
  });
  const byPath = new Map((change.delta as Json[]).map((d) => [d.path, d]));
  t.same(byPath.get("sku.capacity"), { path: "sku.capacity", propertyChangeType: "Modify", before: 3, after: 6 });
  t.same(byPath.get("tags.vmss-ops.max"), { path: "tags.vmss-ops.max", propertyChangeType: "Create", after: "9" });
  t.notOk(
    (change.delta as Json[]).some((d) => /provisioningState|etag|timeCreated|uniqueId/i.test(d.path)),
    "what Azure sets is no change",
  );
  const held = await env.simControl("GET", `/_sim/scaleSets/${RG}/web-prod-v001`);
  t.equal(held.body.vmss.sku.capacity, 6, "Azure holds the Modify's after");
  t.match(plan.later, [{ kind: "wait", decidedBy: /each read/ }], "the wait for the instances, decided by the reads");
});

t.test(
  "a create: a Create, its model whole, a password and custom data censored as the log censors them",
  async (t) => {
    await env.simControl("POST", "/_sim/reset");
    const create = demoCreate(env.sim.subscriptionId, {
      osConfig: { adminPasswordEnv: PASSWORD_ENV, customData: "#!/bin/sh\necho secret-setup" },
    });
    const { plan, sent, exchanges } = await dryThenRun("createServerGroup", create);
    t.match(plan.write, { kind: "create", changes: [{ changeType: "Create", resourceId: /shop-prod-v000$/ }] });
    const [request] = plan.write.requests as Json[];
    t.match(request, { method: "PUT", path: /\/shop-prod-v000\?api-version=\d{4}-\d{2}-\d{2}$/ });
    t.same(request.headers, { "If-None-Match": "*" });
    const os = request.body.properties.virtualMachineProfile.osProfile;
    t.equal(os.adminPassword, CENSORED, "the password");
    t.equal(os.customData, CENSORED, "the custom data");
    t.same(request.body.properties.virtualMachineProfile.storageProfile.imageReference, create.image, "the image");
    t.match(request.body.sku, { name: "Standard_D2s_v3", capacity: 2 });
    t.same(sent[0], request, "the run sent that model");
    const real = exchanges.find((e) => e.method === "PUT")!.requestBody as Json;
    t.equal(
      real.properties.virtualMachineProfile.osProfile.adminPassword,
      PASSWORD,
      "the run sent the password itself",
    );
    t.notOk(JSON.stringify(plan).includes(PASSWORD), "the dry run's answer holds no secret");
    t.match(
      plan.later,
      [{ kind: "wait" }, { kind: "wait", what: /healthy/ }, { kind: "update", decidedBy: /not healthy/ }],
      "the waits for health and what follows them, decided by the reads",
    );
  },
);

t.test("Deck's deploy as Orca posts it (a list body): the dry run's create is the one the run sends", async (t) => {
  await env.simControl("POST", "/_sim/reset");
  const orca = new Orca(env.api, { pollMs: 20 });
  const stage = newStage(convertServerGroupCommandToDeployConfiguration(deckCommand("deck")));
  await orca.determineSourceServerGroup(stage);
  const operations = Orca.azureCreateOperations(stage, await bakeImage(env.sim, "deck"));
  const { plan, task, sent } = await dryThenRun(undefined, operations);
  t.notOk(task.status.failed, task.status.status);
  t.match(plan, { operation: "createServerGroup", serverGroupName: "deck-prod-v000", write: { kind: "create" } });
  const [request] = plan.write.requests as Json[];
  t.match(request.body.properties.virtualMachineProfile.storageProfile.imageReference, {
    id: bake(env.sim.subscriptionId, "deck").imageId,
  });
  t.match(request.body.sku, { name: "Standard_B2s", capacity: 2 });
  // Behind demo-lb, a run first adds the group's pools to the shared balancer (prepare, before any plan): the dry run
  // says it would, without adding them.
  t.ok(
    (plan.preparation as string[]).some((line) => /would add .*demo-lb/.test(line)),
    `the dry run names what the run adds to the balancer: ${JSON.stringify(plan.preparation)}`,
  );
  t.match(sent[0], { method: "PUT", path: /\/loadBalancers\/demo-lb\?/ }, "the run's first write is that addition");
  const created = sent.filter((s) => s.method === "PUT" && /\/virtualMachineScaleSets\/deck-prod-v000\?/.test(s.path));
  t.same(created, [request], "the run sent the dry run's request");
});
