// OpenID Connect callers (Microsoft Entra ID): the simulator is a real issuer (discovery document, RS256 keys at its
// jwks_uri, key rotation, app roles in tokens) and the service checks its tokens with jose, answering per RFC 6750.
// Every rejection is tried one by one against the running service; the key cache's refresh rule and an issuer that
// is down are tried against the verifier itself, which the service uses unchanged.
import t from "tap";
import { createHmac, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { OidcTokenVerifier, type OidcConfig } from "../src/auth/oidc-tokens.ts";
import { principalOfToken } from "../src/auth/oidc-principals.ts";
import { createClient } from "../src/client/index.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { demo, startTestEnv, type TestEnv } from "./helpers/service.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { waitFor } from "../testkit/wait-for.ts";

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
/** The app registration of vmss-ops itself: the API whose application id is the tokens' audience. */
const API_APP_ID = "6e1f1c0a-4f5e-4a55-9d1b-0c3e7f2b9a11";
const DEPLOYER_APP = "11111111-aaaa-4bbb-8ccc-000000000001";
const READER_APP = "22222222-aaaa-4bbb-8ccc-000000000002";
const STRANGER_APP = "33333333-aaaa-4bbb-8ccc-000000000003";
const SECRET = "client-secret-0123456789abcdef";
const STATIC_TOKEN = "static-token-0123456789abcdef";

const caDir = mkdtempSync(join(tmpdir(), "vmss-ops-oidc-"));

function principalsFor(simUrl: string, caFile: string, extra = ""): string {
  return `
oidc:
  issuer: ${simUrl}/${TENANT}/v2.0
  audience: ${API_APP_ID}
  caFile: ${caFile}
${extra}
principals:
  - name: deployers
    accounts: [demo]
    oidc: { roles: [VmssOps.Deploy] }
  - name: readers
    accounts: "*"
    readOnly: true
    oidc: { roles: [VmssOps.Read] }
  - name: small-install
    token: ${STATIC_TOKEN}
    accounts: [demo]
`;
}

async function oidcEnv(
  t: { teardown(fn: () => unknown): void },
  extra = "",
  logger?: Record<string, unknown>,
): Promise<TestEnv> {
  const env = await startTestEnv({
    ...(logger ? { logger } : {}),
    mapEnv: (base, sim) => {
      const caFile = join(caDir, `ca-${sim.url.split(":").pop()}.pem`);
      writeFileSync(caFile, sim.caPem);
      return { ...base, AUTH_TOKENS: principalsFor(sim.url, caFile, extra) };
    },
  });
  t.teardown(() => env.close());
  await env.simControl("POST", "/_sim/identity/apis", {
    tenantId: TENANT,
    appId: API_APP_ID,
    identifierUri: "api://vmss-ops",
  });
  for (const [clientId, roles] of [
    [DEPLOYER_APP, ["VmssOps.Deploy"]],
    [READER_APP, ["VmssOps.Read"]],
    [STRANGER_APP, ["Other.Role"]],
  ] as const)
    await env.simControl("POST", "/_sim/identity/clients", { tenantId: TENANT, clientId, secret: SECRET, roles });
  return env;
}

/** A token from the simulator's token endpoint, as a client-credentials client gets one for api://vmss-ops. */
async function clientToken(env: TestEnv, clientId: string): Promise<string> {
  const res = await request(`${env.sim.url}/${TENANT}/oauth2/v2.0/token`, {
    method: "POST",
    dispatcher: new Agent({ connect: { ca: env.sim.caPem } }),
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: SECRET,
      scope: "api://vmss-ops/.default",
    }).toString(),
  });
  const body = (await res.body.json()) as { access_token: string };
  return body.access_token;
}

/** Any claims, signed by the issuer's current key (the simulator's /_sim/identity/tokens). */
async function signed(env: TestEnv, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const res = await env.simControl("POST", "/_sim/identity/tokens", { tenantId: TENANT, claims, header });
  return res.body.access_token as string;
}

const appClaims = (extra: Record<string, unknown> = {}) => ({
  aud: API_APP_ID,
  azp: DEPLOYER_APP,
  oid: DEPLOYER_APP,
  sub: DEPLOYER_APP,
  roles: ["VmssOps.Deploy"],
  ...extra,
});

async function call(env: TestEnv, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(`${env.baseUrl}${path}`, {
    method: method as "GET",
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);
const READ = "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001";
const resize = demo("web-prod-v001", { capacity: { min: 1, max: 4, desired: 2 } });

t.test("an Entra ID app token is a principal by its app roles; without a principal's role it is a 403", async (t) => {
  const { stream, lines } = jsonLogLines();
  const env = await oidcEnv(t, "", { level: "info", stream });
  const deployer = await clientToken(env, DEPLOYER_APP);
  const payload = JSON.parse(Buffer.from(deployer.split(".")[1], "base64url").toString());
  t.match(payload, { aud: API_APP_ID, azp: DEPLOYER_APP, roles: ["VmssOps.Deploy"], ver: "2.0" }, "a v2.0 app token");

  const submitted = await call(env, "POST", "/azure/ops/resizeServerGroup", deployer, resize);
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));
  t.equal((await call(env, "GET", READ, deployer)).status, 200);

  const reader = await clientToken(env, READER_APP);
  t.equal((await call(env, "GET", READ, reader)).status, 200, "the reader role reads");
  const write = await call(env, "POST", "/azure/ops/resizeServerGroup", reader, resize);
  t.equal(write.status, 403, "and may not write");
  t.match(write.body.message, /readers may only read/);

  const stranger = await call(env, "GET", READ, await clientToken(env, STRANGER_APP));
  t.equal(stranger.status, 403, "a valid token that no principal takes: valid, without rights");
  t.match(stranger.body.message, new RegExp(`application ${STRANGER_APP}, roles Other\\.Role`));
  t.match(stranger.headers["www-authenticate"], /^Bearer realm="vmss-ops", error="insufficient_scope"/);

  t.equal((await call(env, "GET", READ, STATIC_TOKEN)).status, 200, "static tokens still work beside it");
  const wrong = await call(env, "GET", READ, "not-a-jwt-and-not-a-known-token");
  t.equal(wrong.status, 401);
  t.match(wrong.headers["www-authenticate"], /error="invalid_token"/);
  const none = await call(env, "GET", READ);
  t.equal(none.status, 401);
  t.equal(none.headers["www-authenticate"], 'Bearer realm="vmss-ops"', "no credentials: a bare challenge (§3.1)");

  const recorded = await call(env, "GET", `/audit?taskId=${submitted.body.id}`, deployer);
  t.equal(recorded.status, 200, JSON.stringify(recorded.body));
  t.match(
    recorded.body.entries[0],
    {
      action: "submit",
      actor: {
        name: "deployers",
        via: "oidc",
        subject: DEPLOYER_APP,
        issuer: `${env.sim.url}/${TENANT}/v2.0`,
        application: DEPLOYER_APP,
      },
    },
    "the audit trail says who: the principal, proven by OpenID Connect, the token's subject, issuer and application",
  );

  await env.waitForTask(submitted.body.id).catch(() => undefined);
  const logged = JSON.stringify(lines);
  t.ok(logged.includes("deployers"), "requests log the principal");
  for (const token of [deployer, reader]) {
    t.notOk(logged.includes(token), "no token in any log line");
    t.notOk(logged.includes(token.split(".")[2]), "nor its signature");
  }
});

t.test("every kind of bad token is a 401 invalid_token that says what is wrong", async (t) => {
  // Keys refetched on every unknown kid here, so that a rotation shows at once (the cache's rule: the next test).
  const env = await oidcEnv(t, "  keysRefreshMinSeconds: 0");
  const good = await signed(env, appClaims());
  t.equal((await call(env, "GET", READ, good)).status, 200, "the control: a well-formed token passes");
  const skewed = await signed(env, appClaims({ exp: now() - 30 }));
  t.equal((await call(env, "GET", READ, skewed)).status, 200, "expired 30 s ago: within the 60 s clock skew");

  const jwks = (await env.simControl("GET", "/_sim/identity")).body;
  const [, goodPayload] = good.split(".");
  const publicPem = createPublicKey({
    key: (
      await request(`${env.sim.url}/${TENANT}/discovery/v2.0/keys`, {
        dispatcher: new Agent({ connect: { ca: env.sim.caPem } }),
      }).then((r) => r.body.json() as Promise<{ keys: import("node:crypto").JsonWebKey[] }>)
    ).keys[0],
    format: "jwk",
  }).export({ type: "spki", format: "pem" });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const foreignHeader = b64url({ alg: "RS256", typ: "JWT", kid: "not-a-key-of-the-issuer" });
  const hsHeader = b64url({ alg: "HS256", typ: "JWT", kid: jwks.signingKey });

  const cases: Array<[string, string | Promise<string>, RegExp]> = [
    ["expired", signed(env, appClaims({ exp: now() - 3600, iat: now() - 7200, nbf: now() - 7200 })), /has expired/],
    ["not yet valid", signed(env, appClaims({ nbf: now() + 3600 })), /not valid yet/],
    ["for another audience", signed(env, appClaims({ aud: "api://someone-else" })), /another audience/],
    [
      "from another issuer",
      signed(env, appClaims({ iss: `https://login.example.com/${TENANT}/v2.0` })),
      /another issuer/,
    ],
    ["alg none", `${b64url({ alg: "none", typ: "JWT" })}.${goodPayload}.`, /not a valid signed JWT|algorithm/],
    [
      "HS256 signed with the issuer's public key",
      `${hsHeader}.${goodPayload}.${createHmac("sha256", publicPem).update(`${hsHeader}.${goodPayload}`).digest("base64url")}`,
      /algorithm that is not accepted/,
    ],
    [
      "signed with a key the issuer never published (unknown kid)",
      `${foreignHeader}.${goodPayload}.${sign("sha256", Buffer.from(`${foreignHeader}.${goodPayload}`), stranger.privateKey).toString("base64url")}`,
      /key the issuer does not publish/,
    ],
    [
      "a tampered payload",
      `${good.split(".")[0]}.${b64url({ ...JSON.parse(Buffer.from(goodPayload, "base64url").toString()), roles: ["VmssOps.Deploy", "Admin"] })}.${good.split(".")[2]}`,
      /signature does not verify/,
    ],
    ["without exp", signed(env, appClaims({ exp: null })), /no exp claim/],
    ["without sub", signed(env, appClaims({ sub: null })), /no sub claim/],
    ["without aud", signed(env, appClaims({ aud: null })), /no aud claim/],
    ["without iss", signed(env, appClaims({ iss: null })), /no iss claim/],
    ["not a JWT at all", "a.b.c", /not a valid signed JWT/],
  ];
  for (const [what, token, description] of cases) {
    const res = await call(env, "GET", READ, await token);
    t.equal(res.status, 401, what);
    t.equal(res.body?.error, "Unauthorized", what);
    t.match(
      res.headers["www-authenticate"],
      /^Bearer realm="vmss-ops", error="invalid_token", error_description="[^"]+"$/,
      what,
    );
    t.match(res.headers["www-authenticate"], description, `${what}: ${String(res.headers["www-authenticate"])}`);
  }

  // A key withdrawn by a rotation: once the service has fetched the keys again, the old key's tokens are refused.
  const beforeRotation = await signed(env, appClaims());
  await env.simControl("POST", "/_sim/identity/keys:rotate", { keepPrevious: false });
  const afterRotation = await signed(env, appClaims());
  t.not(afterRotation.split(".")[0], beforeRotation.split(".")[0], "another kid");
  t.equal((await call(env, "GET", READ, afterRotation)).status, 200, "the new key's token: the keys are fetched again");
  const rotated = await call(env, "GET", READ, beforeRotation);
  t.equal(rotated.status, 401, "a token of the withdrawn key");
  t.match(
    rotated.headers["www-authenticate"],
    /error="invalid_token", error_description="the token is signed with a key the issuer does not publish"/,
  );
});

t.test("the key cache: refetched for an unknown kid at most once per keysRefreshMinSeconds", async (t) => {
  const env = await oidcEnv(t);
  const caPem = env.sim.caPem;
  const config = (refresh: number): OidcConfig => ({
    issuer: `${env.sim.url}/${TENANT}/v2.0`,
    audiences: [API_APP_ID],
    discoveryUrl: `${env.sim.url}/${TENANT}/v2.0/.well-known/openid-configuration`,
    algorithms: ["RS256"],
    clockToleranceSeconds: 60,
    keysRefreshMinSeconds: refresh,
    timeoutMs: 5000,
    caPem,
  });
  const served = async () => (await env.simControl("GET", "/_sim/identity")).body.jwksServed as number;

  const cautious = new OidcTokenVerifier(config(60));
  t.teardown(() => cautious.close());
  const start = await served();
  t.ok((await cautious.verify(await signed(env, appClaims()))).ok, "a token of the current key");
  t.equal(await served(), start + 1, "the keys fetched once");
  for (let i = 0; i < 5; i++) {
    const forged = await signed(env, appClaims(), { kid: `forged-${i}` });
    const check = await cautious.verify(forged);
    t.match(check, { ok: false, kind: "invalid" }, `unknown kid ${i}`);
  }
  t.equal(await served(), start + 1, "five unknown kids within the minute: no refetch (no flood against the issuer)");

  const eager = new OidcTokenVerifier(config(0));
  t.teardown(() => eager.close());
  const old = await signed(env, appClaims());
  t.ok((await eager.verify(old)).ok);
  await env.simControl("POST", "/_sim/identity/keys:rotate", { keepPrevious: false });
  const fresh = await signed(env, appClaims());
  t.ok((await eager.verify(fresh)).ok, "a token of the new key: its kid is unknown, the keys are fetched again");
  const withdrawn = await eager.verify(old);
  t.match(
    withdrawn,
    { ok: false, kind: "invalid", description: /key the issuer does not publish/ },
    "the rotated key's token is refused",
  );

  // Rotation that keeps the previous key (Entra publishes both a while): both verify.
  await env.simControl("POST", "/_sim/identity/keys:rotate", { keepPrevious: true });
  t.ok((await eager.verify(fresh)).ok, "the previous key still published");
  t.ok((await eager.verify(await signed(env, appClaims()))).ok, "and the new one");
});

t.test("an issuer that is down is a 503 with Retry-After, within the timeout, and never a 500", async (t) => {
  const env = await oidcEnv(t);
  await env.simControl("PUT", "/_sim/identity", { keysUnavailable: true });
  const token = await signed(env, appClaims());
  const down = await call(env, "GET", READ, token);
  t.equal(down.status, 503, JSON.stringify(down.body));
  t.equal(down.body.error, "IdentityProviderUnavailable");
  t.match(down.body.message, /cannot be reached to check the token \(its discovery document .* answered 503\)/);
  t.ok(Number(down.headers["retry-after"]) >= 1, "Retry-After");
  t.equal((await call(env, "GET", READ, STATIC_TOKEN)).status, 200, "static tokens are not affected");
  await env.simControl("PUT", "/_sim/identity", { keysUnavailable: false });
  await waitFor(async () => (await call(env, "GET", READ, token)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 250,
    what: "the issuer is back: the token passes once the pause after a failure is over",
  });

  // An issuer that accepts the connection and never answers: the verifier gives up after timeoutMs.
  const silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (silent.closeAllConnections(), silent.close(() => r()))));
  const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const verifier = new OidcTokenVerifier({
    issuer: url,
    audiences: [API_APP_ID],
    discoveryUrl: `${url}/.well-known/openid-configuration`,
    algorithms: ["RS256"],
    clockToleranceSeconds: 60,
    keysRefreshMinSeconds: 60,
    timeoutMs: 300,
  });
  t.teardown(() => verifier.close());
  t.match(await verifier.verify(token), { ok: false, kind: "unavailable", description: /no answer in time/ });
});

t.test("a token maps to its principal: subject, issuer and calling application recorded", async (t) => {
  const principals = [
    { name: "ci", accounts: ["demo"], readOnly: false, oidc: { applications: ["app-1"] } },
    { name: "sre", accounts: "*" as const, readOnly: false, oidc: { groups: ["g-sre"] } },
    { name: "alice", accounts: "*" as const, readOnly: true, oidc: { objectIds: ["oid-alice"] } },
  ];
  t.match(
    principalOfToken(principals, { iss: "https://issuer", sub: "s", appid: "app-1", oid: "oid-ci" }),
    {
      name: "ci",
      via: "oidc",
      subject: "oid-ci",
      issuer: "https://issuer",
      application: "app-1",
    },
    "a v1.0 token's appid; the subject is Entra's oid",
  );
  t.match(principalOfToken(principals, { sub: "s", azp: "app-2", groups: ["g-x", "g-sre"] }), {
    name: "sre",
    application: "app-2",
    subject: "s",
  });
  t.match(principalOfToken(principals, { sub: "s", oid: "oid-alice" }), { name: "alice", readOnly: true });
  t.equal(principalOfToken(principals, { sub: "s", roles: ["x"] }), undefined, "no match: no principal");
  t.match(
    principalOfToken(principals, { sub: "s", appid: "app-1", groups: ["g-sre"] })?.name,
    "ci",
    "the first match in the file's order",
  );
});

t.test(
  "the client generated from the API document authenticates with an Entra ID token, with no code of its own",
  async (t) => {
    const env = await oidcEnv(t);
    // The document this service serves names its issuer, beside the bearer scheme of the checked-in one.
    const served = (await call(env, "GET", "/openapi.json")).body as {
      components: { securitySchemes: Record<string, { type: string; scheme?: string; openIdConnectUrl?: string }> };
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    t.match(served.components.securitySchemes, {
      bearer: { type: "http", scheme: "bearer" },
      entraId: {
        type: "openIdConnect",
        openIdConnectUrl: `${env.sim.url}/${TENANT}/v2.0/.well-known/openid-configuration`,
      },
    });
    t.same(served.paths["/azure/ops/resizeServerGroup"].post.security, [{ bearer: [] }, { entraId: [] }]);
    const checkedIn = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8")) as typeof served;
    t.notOk("entraId" in checkedIn.components.securitySchemes, "the checked-in document is the same for every install");

    const body = {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      capacity: { min: 1, max: 4, desired: 2 },
    };
    const deployer = createClient({ baseUrl: env.baseUrl, token: await clientToken(env, DEPLOYER_APP) });
    const submitted = await deployer.POST("/azure/ops/resizeServerGroup", { body });
    t.equal(submitted.response.status, 202, JSON.stringify(submitted.error));
    const ref = submitted.data;
    if (ref?.kind !== "taskRef") throw new Error(`expected a task reference, got ${JSON.stringify(ref)}`);

    const reader = createClient({ baseUrl: env.baseUrl, token: await clientToken(env, READER_APP) });
    const read = await reader.GET("/task/{id}", { params: { path: { id: ref.id } } });
    t.equal(read.response.status, 200, "a reader's token reads the task");
    const refused = await reader.POST("/azure/ops/resizeServerGroup", { body });
    t.equal(refused.response.status, 403, "and may not write");

    const anonymous = createClient({ baseUrl: env.baseUrl });
    const challenged = await anonymous.POST("/azure/ops/resizeServerGroup", { body });
    t.equal(challenged.response.status, 401);
    t.match(challenged.response.headers.get("www-authenticate"), /^Bearer /);
  },
);

t.test("keys that cannot be fetched are not fetched again on every request: a pause after a failure", async (t) => {
  // The discovery document answers; the keys answer 503. jose's own cooldown counts only from a successful fetch.
  let keyFetches = 0;
  const issuer = createServer((req, res) => {
    const base = `http://127.0.0.1:${(issuer.address() as { port: number }).port}`;
    if (req.url === "/.well-known/openid-configuration") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/keys` }));
      return;
    }
    keyFetches++;
    res.statusCode = 503;
    res.end();
  });
  await new Promise<void>((r) => issuer.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (issuer.closeAllConnections(), issuer.close(() => r()))));
  const url = `http://127.0.0.1:${(issuer.address() as { port: number }).port}`;
  const verifier = new OidcTokenVerifier({
    issuer: url,
    audiences: [API_APP_ID],
    discoveryUrl: `${url}/.well-known/openid-configuration`,
    algorithms: ["RS256"],
    clockToleranceSeconds: 60,
    keysRefreshMinSeconds: 60,
    timeoutMs: 5000,
  });
  t.teardown(() => verifier.close());
  const token = `${b64url({ alg: "RS256", typ: "JWT", kid: "k1" })}.${b64url(appClaims({ exp: now() + 600 }))}.c2ln`;
  for (let i = 0; i < 31; i++) {
    const check = await verifier.verify(token);
    t.match(check, { ok: false, kind: "unavailable" }, `request ${i}: the keys are unavailable`);
    if (!check.ok && check.kind === "unavailable") t.ok(check.retryAfterSeconds >= 1, "with a Retry-After");
  }
  t.ok(keyFetches >= 1 && keyFetches <= 2, `31 requests, ${keyFetches} key fetches`);
});

t.test(
  "a valid token that no principal takes: its refused write is in the audit trail, by subject and issuer",
  async (t) => {
    const { stream, lines } = jsonLogLines();
    const env = await oidcEnv(t, "", { level: "info", stream });
    const stranger = await clientToken(env, STRANGER_APP);
    const write = await call(env, "POST", "/azure/ops/resizeServerGroup", stranger, resize);
    t.equal(write.status, 403, JSON.stringify(write.body));
    // Refused before its body was read: the entry names no account, so a principal of every account reads it.
    const reader = await clientToken(env, READER_APP);
    let entries: Record<string, unknown>[] = [];
    await waitFor(
      async () =>
        (entries = (await call(env, "GET", `/audit?principal=${encodeURIComponent("(no principal)")}`, reader)).body
          .entries).length >= 1,
      { what: "the refusal's audit entry" },
    );
    t.equal(entries.length, 1);
    t.match(entries[0], {
      action: "submit",
      decision: "refused",
      status: 403,
      reason: /no principal in the configuration takes it/,
      actor: { name: "(no principal)", via: "oidc", subject: STRANGER_APP, issuer: `${env.sim.url}/${TENANT}/v2.0` },
      targets: [{ operation: "resizeServerGroup" }],
      request: "POST /azure/ops/resizeServerGroup",
    });
    const logged = JSON.stringify(lines);
    t.ok(logged.includes('"decision":"refused"'), "logged as an audit line too");
    t.notOk(logged.includes(stranger.split(".")[2]), "never the token");
  },
);
