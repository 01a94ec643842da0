// Azure identity: the client-secret and workload-identity flows end to end through @azure/identity against the simulator's Microsoft Entra
// ID token endpoint (discovery, token, and ARM checking the token it issued); every other credential kind through
// its configuration path; a misconfigured account reported at start-up by name; a secret nowhere to be seen.
import t from "tap";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import {
  ClientCertificateCredential,
  ClientSecretCredential,
  DefaultAzureCredential,
  ManagedIdentityCredential,
  WorkloadIdentityCredential,
} from "@azure/identity";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { AccountSetupError, credentialFor, loadIdentity } from "../src/azure/client.ts";
import { CLOUDS } from "../src/azure/account-config.ts";
import { ConfigError } from "../src/config.ts";
import { loadConfig } from "../src/startup-config.ts";
import { SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import { startTestEnv } from "./helpers/service.ts";
import { waitFor, waitForLog } from "../testkit/wait-for.ts";

// credentialFor builds real credentials only once @azure/identity is loaded (AccountRegistry.open does it at start-up).
await loadIdentity();

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT_ID = "8f5b1c2e-3d4a-4b6c-9e7f-0a1b2c3d4e5f";
const SECRET = "s3cr3t~Vmss.Ops_0123456789-known-secret";

t.test("client secret, end to end: Entra token endpoint, then ARM accepts only the token it issued", async (t) => {
  const logs: string[] = [];
  const stream = new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) });
  const env = await startTestEnv({
    logger: { level: "debug", stream },
    env: {
      TEAM_SECRET: SECRET,
      ACCOUNTS: `
- name: entra
  subscriptionId: ${SIMULATOR_SUBSCRIPTION_ID}
  tenantId: ${TENANT}
  cloud: custom
  endpoint: __SIM__
  authorityHost: __SIM__
  defaultResourceGroup: demo-rg
  serverGroupResourceGroup: account
  regions: [eastus]
  credential: { type: clientSecret, clientId: ${CLIENT_ID}, clientSecretEnv: TEAM_SECRET }
`,
    },
    // The simulator's URL is known only once it listens.
    mapEnv: (e, sim) => ({ ...e, ACCOUNTS: e.ACCOUNTS.replaceAll("__SIM__", sim.url) }),
  });
  t.teardown(() => env.close());
  t.equal(
    (await env.simControl("POST", "/_sim/identity/clients", { tenantId: TENANT, clientId: CLIENT_ID, secret: SECRET }))
      .status,
    201,
  );
  // From now on the simulator's ARM side refuses anything but a token its Entra endpoint issued.
  t.equal((await env.simControl("PUT", "/_sim/identity", { requireIssuedTokens: true })).status, 200);

  const read = await env.api("GET", "/azure/serverGroups/entra/eastus/demo-rg/web-prod-v001");
  t.equal(read.status, 200, JSON.stringify(read.body));
  const submitted = await env.api("POST", "/azure/ops/resizeServerGroup", {
    credentials: "entra",
    region: "eastus",
    serverGroupName: "web-prod-v002",
    capacity: { min: 1, max: 5, desired: 3 },
  });
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  const identity = (await env.simControl("GET", "/_sim/identity")).body;
  t.ok(identity.issued >= 1, `the token endpoint issued ${identity.issued} token(s); the credential caches them`);
  t.ok(identity.issued <= 2, "not one token per call");

  // The fixed simulator token of the demo account is refused now: proof that the check is real.
  const demoRead = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001");
  t.equal(demoRead.status, 502);
  t.match(demoRead.body.message, /InvalidAuthenticationToken/);

  // A forged token (right shape, wrong signature) is refused by the simulator's ARM side.
  const forged = await fetch(
    `${env.sim.url}/subscriptions/${SIMULATOR_SUBSCRIPTION_ID}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v001?api-version=2024-11-01`,
    {
      headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjk5OTk5OTk5OTl9.AAAA" },
      dispatcher: new (await import("undici")).Agent({ connect: { ca: env.sim.caPem } }),
    },
  );
  t.equal(forged.status, 401);
  t.equal(((await forged.json()) as { error: { code: string } }).error.code, "InvalidAuthenticationToken");

  await t.test("a wrong secret: Entra's invalid_client, the task fails, the secret appears nowhere", async (t) => {
    const wrong = await startTestEnv({
      logger: { level: "debug", stream },
      env: {
        TEAM_SECRET: `${SECRET}-wrong`,
        ACCOUNTS: `[{"name":"entra","subscriptionId":"${SIMULATOR_SUBSCRIPTION_ID}","tenantId":"${TENANT}","endpoint":"__SIM__","authorityHost":"__SIM__","defaultResourceGroup":"demo-rg","serverGroupResourceGroup":"account","credential":{"type":"clientSecret","clientId":"${CLIENT_ID}","clientSecretEnv":"TEAM_SECRET"}}]`,
      },
      mapEnv: (e, sim) => ({ ...e, ACCOUNTS: e.ACCOUNTS.replaceAll("__SIM__", sim.url) }),
    });
    t.teardown(() => wrong.close());
    t.equal(
      (
        await wrong.simControl("POST", "/_sim/identity/clients", {
          tenantId: TENANT,
          clientId: CLIENT_ID,
          secret: SECRET,
        })
      ).status,
      201,
    );
    const res = await wrong.api("POST", "/azure/ops/resizeServerGroup", {
      credentials: "entra",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      capacity: { min: 1, max: 5, desired: 2 },
    });
    const failed = await wrong.waitForTask(res.body.id);
    t.equal(failed.state, "failed");
    t.match(JSON.stringify(failed), /AADSTS7000215|invalid_client/, "the task says why");
    const read = await wrong.api("GET", "/azure/serverGroups/entra/eastus/demo-rg/web-prod-v001");
    t.ok(read.status >= 500, "the read fails too");
    const ready = await waitFor(
      async () => {
        const r = await wrong.api("GET", "/ready");
        const entra = r.body?.accounts?.entra as { problem?: string } | undefined;
        return entra !== undefined && !entra.problem?.startsWith("not checked yet") && r;
      },
      { what: "a check of the entra account that ended" },
    );
    t.equal(ready.status, 200, "a credential every replica shares does not make this one unready");
    t.match(
      ready.body.accounts.entra,
      { ok: false, problem: /^Authentication\w*Error/ },
      "readiness names the account and the kind of problem",
    );
    const metrics = await (await fetch(`${wrong.baseUrl}/metrics`)).text();
    const everything = [
      JSON.stringify(failed),
      JSON.stringify(read.body),
      JSON.stringify(ready.body),
      metrics,
      logs.join("\n"),
      JSON.stringify((await wrong.api("GET", "/task")).body),
    ].join("\n");
    for (const secret of [SECRET, `${SECRET}-wrong`])
      t.notOk(everything.includes(secret), "the secret is in no task, error, log line or metric");
    t.ok(everything.length > 1000, "there was something to look through");
  });
  await t.test("the real entry point names an account whose credential cannot get a token, at start-up", async (t) => {
    await env.simControl("PUT", "/_sim/identity", { requireIssuedTokens: false });
    const child = await startChildService({
      SIMULATOR_URL: env.sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "memory",
      TEAM_SECRET: "not-the-secret-0123456789",
      ACCOUNTS: JSON.stringify([
        {
          name: "entra",
          subscriptionId: SIMULATOR_SUBSCRIPTION_ID,
          tenantId: TENANT,
          endpoint: env.sim.url,
          authorityHost: env.sim.url,
          credential: { type: "clientSecret", clientId: CLIENT_ID, clientSecretEnv: "TEAM_SECRET" },
        },
      ]),
    });
    t.teardown(() => child.child.kill("SIGKILL"));
    // Every line the service prints is JSON: read the messages, not the escaped text.
    const messages = () =>
      child
        .output()
        .split("\n")
        .flatMap((line) => {
          try {
            return [String(JSON.parse(line).msg ?? "")];
          } catch {
            return [];
          }
        })
        .join("\n");
    await waitForLog(messages, /account "entra" cannot reach Azure/, { intervalMs: 100 });
    t.match(
      messages(),
      /account "entra" cannot reach Azure with its credential: .*AADSTS7000215: Invalid client secret provided/,
    );
    t.notMatch(messages(), /account "demo" cannot reach/, "the demo account is fine");
    t.notOk(child.output().includes("not-the-secret-0123456789"), "the secret is not in the output");
  });
  const all = logs.join("\n") + JSON.stringify(task) + (await (await fetch(`${env.baseUrl}/metrics`)).text());
  t.notOk(all.includes(SECRET), "the right secret appears nowhere either");
});

t.test("workload identity, end to end: the federated token file is the client assertion", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "vmss-ops-wi-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, "azure-identity-token");
  // What the AKS webhook projects into the pod: a service-account JWT (its content is opaque to us).
  const federated =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL29pZGMuZXhhbXBsZSIsInN1YiI6InN5c3RlbTpzZXJ2aWNlYWNjb3VudDp2bXNzLW9wczp2bXNzLW9wcyJ9.c2ln";
  await writeFile(tokenFile, federated);
  const env = await startTestEnv({
    env: { ACCOUNTS: "" },
    mapEnv: (e, sim) => ({
      ...e,
      ACCOUNTS: JSON.stringify([
        {
          name: "aks",
          subscriptionId: SIMULATOR_SUBSCRIPTION_ID,
          tenantId: TENANT,
          endpoint: sim.url,
          authorityHost: sim.url,
          defaultResourceGroup: "demo-rg",
          serverGroupResourceGroup: "account",
          credential: { type: "workloadIdentity", clientId: CLIENT_ID, tokenFilePath: tokenFile },
        },
      ]),
    }),
  });
  t.teardown(() => env.close());
  t.equal(
    (
      await env.simControl("POST", "/_sim/identity/clients", {
        tenantId: TENANT,
        clientId: CLIENT_ID,
        federatedToken: federated,
      })
    ).status,
    201,
  );
  t.equal((await env.simControl("PUT", "/_sim/identity", { requireIssuedTokens: true })).status, 200);
  const read = await env.api("GET", "/azure/serverGroups/aks/eastus/demo-rg/batch-v001");
  t.equal(read.status, 200, JSON.stringify(read.body));
  t.equal(
    (await env.simControl("GET", "/_sim/identity")).body.issued,
    1,
    "one token, issued for the federated assertion",
  );
});

t.test("every credential kind through its configuration path, and each cloud's endpoints", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "vmss-ops-identity-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const certPath = join(dir, "sp.pem");
  // The simulator's own key pair stands in for a service principal's certificate (a PEM with both).
  const { loadTlsMaterial } = await import("vmss-simulator");
  const { certPem, keyPem } = loadTlsMaterial();
  await writeFile(certPath, certPem + keyPem);
  const tokenFile = join(dir, "federated-token");
  await writeFile(tokenFile, "eyJhbGciOiJSUzI1NiJ9.e30.sig");
  const secretFile = join(dir, "secret");
  await writeFile(secretFile, `${SECRET}\n`);
  const sub = "11111111-2222-3333-4444-555555555555";
  const accounts = `
accounts:
  - { name: sp-secret-file, subscriptionId: ${sub}, tenantId: ${TENANT}, credential: { type: clientSecret, clientId: ${CLIENT_ID}, clientSecretFile: ${secretFile} } }
  - { name: sp-cert, subscriptionId: ${sub}, cloud: AzureUSGovernment, credential: { type: clientCertificate, tenantId: ${TENANT}, clientId: ${CLIENT_ID}, certificatePath: ${certPath} } }
  - { name: workload, subscriptionId: ${sub}, cloud: AzureChinaCloud, credential: { type: workloadIdentity, tenantId: ${TENANT}, clientId: ${CLIENT_ID}, tokenFilePath: ${tokenFile} } }
  - { name: msi, subscriptionId: ${sub}, credential: { type: managedIdentity, clientId: ${CLIENT_ID} } }
  - { name: msi-system, subscriptionId: ${sub}, credential: managedIdentity }
  - { name: chain, subscriptionId: ${sub}, credential: default }
  - { name: stack, subscriptionId: ${sub}, endpoint: https://management.local.azurestack.external, authorityHost: https://login.local.azurestack.external, audience: https://management.adfs.azurestack.local/abc, credential: default }
`;
  const file = join(dir, "accounts.yaml");
  await writeFile(file, accounts);
  const config = loadConfig({ SIMULATOR: "off", ACCOUNTS_FILE: file, TRUSTED_NETWORK: "true" });
  const byName = Object.fromEntries(config.accounts.map((a) => [a.name, a]));
  t.same(Object.keys(byName), ["sp-secret-file", "sp-cert", "workload", "msi", "msi-system", "chain", "stack"]);
  t.match(byName["sp-cert"], { cloud: "AzureUSGovernment", ...CLOUDS.AzureUSGovernment });
  t.match(byName.workload, {
    cloud: "AzureChinaCloud",
    endpoint: "https://management.chinacloudapi.cn",
    authorityHost: "https://login.chinacloudapi.cn",
  });
  t.match(byName.chain, { cloud: "AzureCloud", endpoint: "https://management.azure.com" });
  t.match(byName.stack, { cloud: "custom", audience: "https://management.adfs.azurestack.local/abc" });
  t.notOk(JSON.stringify(config).includes(SECRET), "the configuration object holds no secret");

  const kinds: [string, abstract new (...args: never[]) => unknown][] = [
    ["sp-secret-file", ClientSecretCredential],
    ["sp-cert", ClientCertificateCredential],
    ["workload", WorkloadIdentityCredential],
    ["msi", ManagedIdentityCredential],
    ["msi-system", ManagedIdentityCredential],
    ["chain", DefaultAzureCredential],
    ["stack", DefaultAzureCredential],
  ];
  for (const [name, cls] of kinds) t.ok(credentialFor(byName[name]) instanceof cls, `${name} → ${cls.name}`);
  const registry = new AccountRegistry(config.accounts);
  for (const name of registry.names()) t.ok(registry.client(name), `${name}: its client builds`);

  // The environment form: one account from AZURE_* variables.
  const fromEnv = loadConfig({
    SIMULATOR: "off",
    TRUSTED_NETWORK: "true",
    AZURE_ACCOUNT_NAME: "env-prod",
    AZURE_SUBSCRIPTION_ID: sub,
    AZURE_TENANT_ID: TENANT,
    AZURE_CLIENT_ID: CLIENT_ID,
    AZURE_CLIENT_SECRET: SECRET,
    AZURE_REGIONS: "eastus, westeurope",
    AZURE_DEFAULT_RESOURCE_GROUP: "prod-rg",
  });
  t.match(fromEnv.accounts[0], {
    name: "env-prod",
    regions: ["eastus", "westeurope"],
    defaultResourceGroup: "prod-rg",
    credential: { kind: "clientSecret", tenantId: TENANT, clientId: CLIENT_ID },
  });
  t.ok(credentialFor(fromEnv.accounts[0]) instanceof ClientSecretCredential);
});

t.test("a misconfigured account stops start-up, named, with the problem", async (t) => {
  const sub = "11111111-2222-3333-4444-555555555555";
  const cases: [string, RegExp][] = [
    [
      `[{ name: a1, subscriptionId: ${sub}, credential: { type: clientSecret, tenantId: t, clientId: c, clientSecretEnv: NOT_SET_ANYWHERE } }]`,
      /account "a1": environment variable NOT_SET_ANYWHERE \(clientSecretEnv\) is not set/,
    ],
    [
      `[{ name: a2, subscriptionId: ${sub}, credential: { type: clientSecret, clientId: c, clientSecretEnv: SOME_SECRET } }]`,
      /account "a2": clientSecret needs tenantId/,
    ],
    [
      `[{ name: a3, subscriptionId: ${sub}, credential: { type: clientCertificate, tenantId: t, clientId: c, certificatePath: /nonexistent.pem } }]`,
      /account "a3": certificatePath \/nonexistent.pem cannot be read/,
    ],
    [
      `[{ name: a4, subscriptionId: ${sub}, credential: { type: workloadIdentity, tenantId: t, clientId: c } }]`,
      /account "a4": workloadIdentity needs tokenFilePath/,
    ],
    [
      `[{ name: a5, subscriptionId: ${sub}, cloud: Mars }]`,
      /account "a5": cloud must be AzureCloud, AzureUSGovernment, AzureChinaCloud or custom/,
    ],
    [`[{ name: a6, subscriptionId: not-a-guid }]`, /account "a6": subscriptionId must be a GUID/],
    [
      `[{ name: a7, subscriptionId: ${sub}, credential: { type: clientSecret, tenantId: t, clientId: c, clientSecretEnv: SOME_SECRET, password: x } }]`,
      /account "a7": credential key "password" does not apply to clientSecret/,
    ],
    [`[{ name: a8, subscriptionId: ${sub}, cloud: custom }]`, /account "a8": cloud custom needs endpoint/],
    [
      `[{ name: a9, subscriptionId: ${sub}, credential: { type: managedIdentity, clientId: x, resourceId: y } }]`,
      /account "a9": managedIdentity takes clientId or resourceId, not both/,
    ],
  ];
  for (const [accounts, message] of cases)
    t.throws(
      () => loadConfig({ SIMULATOR: "off", TRUSTED_NETWORK: "true", ACCOUNTS: accounts, SOME_SECRET: "x" }),
      message,
      accounts,
    );

  // Through the real entry point: exit code 2 and the account named on stderr.
  const child = spawn(process.execPath, ["src/server.ts"], {
    cwd: REPO,
    env: { ...process.env, SIMULATOR: "off", TRUSTED_NETWORK: "true", PORT: "0", ACCOUNTS: cases[0][0] },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  t.equal(code, 2);
  t.match(out, /configuration error: ACCOUNTS: account "a1": environment variable NOT_SET_ANYWHERE/);

  // A credential that @azure/identity itself refuses is named too.
  const bad = loadConfig({
    SIMULATOR: "off",
    TRUSTED_NETWORK: "true",
    SOME_SECRET: "x",
    ACCOUNTS: `[{ name: b1, subscriptionId: ${sub}, credential: { type: clientSecret, tenantId: "not a tenant!", clientId: c, clientSecretEnv: SOME_SECRET } }]`,
  });
  t.throws(() => new AccountRegistry(bad.accounts), AccountSetupError);
  t.throws(() => new AccountRegistry(bad.accounts), /account "b1": clientSecret credential: .*tenant/i);
  t.ok(ConfigError);
});
