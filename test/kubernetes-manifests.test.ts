// deploy/kubernetes: every built-in object validated against the Kubernetes API schemas (kubernetes-models, the
// OpenAPI schemas of the API server as JSON Schema), the ServiceMonitor (a Prometheus Operator CRD, which those
// schemas do not hold) checked field by field against its CRD's required shape, the objects' references to each
// other followed, and the environment the Deployment gives a pod loaded by the service's own configuration loader.
import t from "tap";
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { loadConfig } from "../src/startup-config.ts";
import { REPO } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const DIR = join(REPO, "deploy", "kubernetes");
type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: Json;
};

/** The Kubernetes model of each built-in kind used here; validate() throws on any schema violation. */
const MODELS: Record<string, new (data: Json) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
};

async function loadManifests(): Promise<{ files: string[]; resources: string[]; objects: Obj[] }> {
  const files = (await readdir(DIR)).filter((f) => f.endsWith(".yaml")).sort();
  const kustomization = parseAllDocuments(await readFile(join(DIR, "kustomization.yaml"), "utf8"))[0].toJS();
  const objects: Obj[] = [];
  for (const file of files.filter((f) => f !== "kustomization.yaml")) {
    for (const doc of parseAllDocuments(await readFile(join(DIR, file), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      objects.push(doc.toJS());
    }
  }
  return { files, resources: kustomization.resources, objects };
}

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

t.test("the manifests are valid Kubernetes objects that refer to each other correctly", async (t) => {
  const { files, resources, objects } = await loadManifests();
  t.same(
    [...resources].sort(),
    files.filter((f) => f !== "kustomization.yaml"),
    "the kustomization lists every manifest in the folder, and only those",
  );

  for (const obj of objects) {
    const key = `${obj.apiVersion}/${obj.kind}`;
    if (key === "monitoring.coreos.com/v1/ServiceMonitor") continue;
    const Model = MODELS[key];
    t.ok(Model, `${key} has a Kubernetes schema to check it against`);
    if (!Model) continue;
    t.doesNotThrow(
      () => new Model(obj).validate(),
      `${obj.kind} ${obj.metadata.name} is valid against the ${key} schema`,
    );
  }

  const one = (kind: string) => {
    const found = objects.filter((o) => o.kind === kind);
    t.equal(found.length, 1, `one ${kind}`);
    return found[0];
  };
  const deployment = one("Deployment");
  const service = one("Service");
  const pdb = one("PodDisruptionBudget");
  const monitor = one("ServiceMonitor");
  const secret = one("Secret");
  const configMap = one("ConfigMap");
  const serviceAccount = one("ServiceAccount");

  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];
  t.equal(deployment.spec.replicas, 2, "two replicas");
  t.ok(matches(deployment.spec.selector.matchLabels, pod.metadata.labels), "the Deployment selects its own pods");
  const portNames = new Set(container.ports.map((p: { name: string }) => p.name));
  t.match(container.livenessProbe.httpGet, { path: "/health", port: "http" }, "liveness on /health");
  t.match(container.readinessProbe.httpGet, { path: "/ready", port: "http" }, "readiness on /ready");
  t.ok(
    portNames.has(container.livenessProbe.httpGet.port) && portNames.has(container.readinessProbe.httpGet.port),
    "the probes name a container port",
  );
  const readyTimeoutMs = Number(
    container.env.find((e: { name: string }) => e.name === "READY_TIMEOUT_MS")?.value ?? 5000,
  );
  t.ok(
    container.readinessProbe.timeoutSeconds * 1000 > readyTimeoutMs,
    "/ready answers (its checks give up at READY_TIMEOUT_MS) before the readiness probe gives up",
  );
  t.ok(
    pod.spec.terminationGracePeriodSeconds * 1000 >
      Number(container.env.find((e: { name: string }) => e.name === "SHUTDOWN_TIMEOUT_MS").value),
    "the grace period outlasts the service's own shutdown timeout",
  );

  t.ok(matches(service.spec.selector, pod.metadata.labels), "the Service selects the pods");
  t.ok(
    service.spec.ports.every((p: { targetPort: string }) => portNames.has(p.targetPort)),
    "the Service targets a named container port",
  );
  t.ok(matches(pdb.spec.selector.matchLabels, pod.metadata.labels), "the PodDisruptionBudget covers the pods");
  t.ok(
    pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < deployment.spec.replicas,
    "a drain may take one replica, never both",
  );

  // Workload identity: the service account carries the identity, the pods ask the webhook for its token.
  t.equal(pod.spec.serviceAccountName, serviceAccount.metadata.name);
  t.match(serviceAccount.metadata.annotations?.["azure.workload.identity/client-id"], /^[0-9a-f-]{36}$/);
  t.equal(pod.metadata.labels["azure.workload.identity/use"], "true");

  // Every secret and config map reference resolves.
  const secretKeys = new Set(Object.keys(secret.stringData ?? {}));
  for (const e of container.env) {
    if (e.valueFrom?.secretKeyRef) {
      t.equal(e.valueFrom.secretKeyRef.name, secret.metadata.name, `${e.name} reads the Secret`);
      t.ok(secretKeys.has(e.valueFrom.secretKeyRef.key), `${e.name}: the Secret has ${e.valueFrom.secretKeyRef.key}`);
    }
  }
  for (const v of pod.spec.volumes) {
    if (v.configMap) t.equal(v.configMap.name, configMap.metadata.name);
    if (v.secret) {
      t.equal(v.secret.secretName, secret.metadata.name);
      for (const item of v.secret.items ?? [])
        t.ok(secretKeys.has(item.key), `volume ${v.name}: the Secret has ${item.key}`);
    }
  }

  // The ServiceMonitor is a CRD (monitoring.coreos.com/v1): kubernetes-models has no schema for it, so its shape is
  // checked here against what the CRD requires and what the Prometheus Operator reads.
  t.equal(monitor.apiVersion, "monitoring.coreos.com/v1");
  t.same(Object.keys(monitor).sort(), ["apiVersion", "kind", "metadata", "spec"]);
  t.same(Object.keys(monitor.spec).sort(), ["endpoints", "selector"]);
  t.ok(
    matches(monitor.spec.selector.matchLabels, service.metadata.labels),
    "the ServiceMonitor selects the Service by its labels",
  );
  t.equal(monitor.spec.endpoints.length, 1);
  const endpoint = monitor.spec.endpoints[0];
  const knownEndpointFields = new Set(["port", "path", "interval", "scrapeTimeout", "authorization", "scheme"]);
  t.same(
    Object.keys(endpoint).filter((k) => !knownEndpointFields.has(k)),
    [],
    "only fields the CRD defines",
  );
  t.ok(
    service.spec.ports.some((p: { name: string }) => p.name === endpoint.port),
    "the endpoint names a Service port",
  );
  t.equal(endpoint.path, "/metrics");
  t.match(endpoint.interval, /^\d+s$/);
  t.match(endpoint.scrapeTimeout, /^\d+s$/);
  t.ok(
    parseInt(endpoint.scrapeTimeout, 10) <= parseInt(endpoint.interval, 10),
    "the scrape timeout fits in the interval",
  );
  t.equal(endpoint.authorization.type, "Bearer");
  t.equal(endpoint.authorization.credentials.name, secret.metadata.name);
  t.ok(secretKeys.has(endpoint.authorization.credentials.key), "the scrape token is in the Secret");
});

t.test("the schemas catch a mistake (the check above can fail)", async (t) => {
  const { objects } = await loadManifests();
  const deployment = structuredClone(objects.find((o) => o.kind === "Deployment")!);
  deployment.spec.template.spec.containers[0].ports[0].containerPort = "7002";
  t.throws(() => new Deployment(deployment).validate(), /containerPort must be integer/);
});

t.test("the pod's environment is a configuration the service accepts", async (t) => {
  const { objects } = await loadManifests();
  const deployment = objects.find((o) => o.kind === "Deployment")!;
  const secret = objects.find((o) => o.kind === "Secret")!;
  const configMap = objects.find((o) => o.kind === "ConfigMap")!;
  const container = deployment.spec.template.spec.containers[0];

  // The mounted files, where the Deployment mounts them, under a temporary root.
  const root = await mkdtemp(join(tmpdir(), "vmss-ops-k8s-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const volumes = new Map<string, Record<string, string>>();
  for (const v of deployment.spec.template.spec.volumes) {
    if (v.configMap) volumes.set(v.name, configMap.data);
    if (v.secret)
      volumes.set(
        v.name,
        Object.fromEntries(
          (v.secret.items ?? []).map((i: { key: string; path: string }) => [i.path, secret.stringData[i.key]]),
        ),
      );
  }
  for (const m of container.volumeMounts) {
    for (const [file, content] of Object.entries(volumes.get(m.name) ?? {})) {
      await mkdir(join(root, m.mountPath), { recursive: true });
      await writeFile(join(root, m.mountPath, file), content);
    }
  }
  const env: Record<string, string> = {};
  for (const e of container.env) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = secret.stringData[e.valueFrom.secretKeyRef.key];
    else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.name") env[e.name] = "vmss-ops-7d9c8b5f4-abcde";
  }
  for (const name of ["ACCOUNTS_FILE", "AUTH_TOKENS_FILE"]) env[name] = join(root, env[name]);
  // What the workload-identity webhook injects into a pod labelled azure.workload.identity/use.
  const tokenFile = join(root, "var/run/secrets/azure/tokens/azure-identity-token");
  await mkdir(dirname(tokenFile), { recursive: true });
  await writeFile(tokenFile, "eyJhbGciOiJSUzI1NiJ9.e30.signature");
  Object.assign(env, {
    AZURE_CLIENT_ID: "00000000-0000-0000-0000-000000000000",
    AZURE_TENANT_ID: "00000000-0000-0000-0000-000000000000",
    AZURE_FEDERATED_TOKEN_FILE: tokenFile,
    AZURE_AUTHORITY_HOST: "https://login.microsoftonline.com/",
  });

  const config = loadConfig(env);
  t.equal(config.store.kind, "postgres", "the replicas share PostgreSQL");
  t.equal(config.simulator.mode, "off", "real Azure only");
  t.equal(config.host, "0.0.0.0");
  t.equal(config.port, 7002);
  t.equal(config.tasks.replicaId, "vmss-ops-7d9c8b5f4-abcde", "each replica is named after its pod");
  t.ok(
    config.accounts.length > 0 && config.accounts.every((a) => a.credential.kind === "workloadIdentity"),
    "every account uses workload identity",
  );
  t.same(
    config.access.principals.map((p) => p.name),
    ["orca", "oncall", "prometheus"],
  );
  t.equal(config.access.protectMetrics, true, "/metrics needs the scrape token");
});
