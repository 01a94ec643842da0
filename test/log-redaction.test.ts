// The service's log never carries a bearer token from a request's headers, nor a value under a key that names a
// secret (clientSecret, password, token, adminPassword, customData, protectedSettings), at the top of a logged object
// or one level into it, whatever logs it; a dry run's ARM request by the same keys at any depth.
import t from "tap";
import { CENSORED, censorSecrets, censorSecretsDeep } from "../src/observability/log-redaction.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

t.test("the service's logger censors secrets and authorization headers in what any line logs", async (t) => {
  const { stream, lines } = jsonLogLines<Record<string, Json>>();
  const env = await startTestEnv({ logger: { level: "info", stream } });
  t.teardown(() => env.close());
  const log = env.service.app.log;
  const secretError = Object.assign(new Error("token endpoint refused"), { token: "err-token-5" });

  log.info({ account: { name: "prod", clientSecret: "s3cret-1", tenantId: "t" }, password: "pw-2" }, "an account");
  log.info({ req: { method: "GET", headers: { authorization: "Bearer abc-3", accept: "json" } } }, "a request");
  log.info({ headers: { authorization: "Bearer abc-4" } }, "some headers");
  log.warn({ err: secretError, call: { token: undefined, path: "/x" } }, "an error");
  log.info({ taskId: "t-1", tags: ["token", "password"] }, "nothing secret");

  const text = lines.map((l) => JSON.stringify(l)).join("\n");
  for (const secret of ["s3cret-1", "pw-2", "abc-3", "abc-4", "err-token-5"])
    t.notOk(text.includes(secret), `${secret} is not in the log`);
  const byMsg = (msg: string) => lines.find((l) => l.msg === msg)!;
  t.same(
    byMsg("an account").account,
    { name: "prod", clientSecret: CENSORED, tenantId: "t" },
    "one level in: censored, the rest kept",
  );
  t.equal(byMsg("an account").password, CENSORED, "at the top of the line");
  t.same(byMsg("a request").req, { method: "GET" }, "fastify's request serializer logs no headers at all");
  t.same(byMsg("some headers").headers, { authorization: CENSORED });
  t.match(
    byMsg("an error").err,
    { type: "Error", message: "token endpoint refused", token: CENSORED },
    "an error is still logged as one",
  );
  t.match(secretError, { token: "err-token-5" }, "the logged error itself is not changed");
  t.same(byMsg("nothing secret").tags, ["token", "password"], "a secret's name as a value is not a secret");
});

t.test("censorSecrets hands a line without secrets back as it is, and never changes the caller's object", async (t) => {
  const clean = { taskId: "t-1", scaleSet: "demo/rg/web", attempt: 2, nested: { a: 1 } };
  t.equal(censorSecrets(clean), clean, "the same object: nothing copied");
  const account = { clientSecret: "x", name: "a" };
  const line = { account, token: "y" };
  const out = censorSecrets(line);
  t.not(out, line);
  t.same(out, { account: { clientSecret: CENSORED, name: "a" }, token: CENSORED });
  t.same(line, { account: { clientSecret: "x", name: "a" }, token: "y" }, "the caller's objects keep their values");
});

t.test("a dry run's ARM request is censored by the same keys, at any depth, and never changed itself", async (t) => {
  const body = {
    sku: { capacity: 2 },
    properties: {
      virtualMachineProfile: {
        osProfile: { adminUsername: "azureuser", adminPassword: "pw-6", customData: "c2VjcmV0" },
        extensionProfile: { extensions: [{ name: "script", properties: { protectedSettings: { key: "k-7" } } }] },
      },
    },
  };
  const out = censorSecretsDeep(body) as typeof body;
  t.same(out.properties.virtualMachineProfile.osProfile, {
    adminUsername: "azureuser",
    adminPassword: CENSORED,
    customData: CENSORED,
  });
  t.same(out.properties.virtualMachineProfile.extensionProfile.extensions[0], {
    name: "script",
    properties: { protectedSettings: CENSORED },
  });
  t.same(out.sku, { capacity: 2 });
  t.equal(body.properties.virtualMachineProfile.osProfile.adminPassword, "pw-6", "the body itself keeps its values");
  t.same(
    censorSecrets({ osProfile: { adminPassword: "pw-8" } }),
    { osProfile: { adminPassword: CENSORED } },
    "and a log line",
  );
});
