// The order in which buildApp installs what every request goes through is declared by each plugin (fastify-plugin
// `dependencies`) and checked by fastify: a plugin registered before one it depends on stops the app from starting.
import t from "tap";
import Fastify, { type FastifyPluginCallback } from "fastify";
import {
  accessControl,
  auditTrail,
  clouddriverForwarding,
  documentedAnswers,
  draining,
  jsonBodies,
  overloadProtection,
} from "../src/app/cross-cutting.ts";
import { serviceRoutes } from "../src/app/routes.ts";

// What each must come after (the first of its dependencies that fastify reports missing), and why.
const ORDER: [string, FastifyPluginCallback<never>, string, string][] = [
  ["draining", draining, "error-handling", "it answers with an error of the catalogue"],
  ["access-control", accessControl, "draining", "a replica that is closing answers 503 before asking for credentials"],
  ["documented-answers", documentedAnswers, "access-control", "a route's 401 and 403 follow from its access"],
  ["audit-trail", auditTrail, "access-control", "a refusal is recorded with the caller"],
  ["overload", overloadProtection, "access-control", "the per-caller limits are keyed by the principal"],
  ["json-bodies", jsonBodies, "error-handling", "a body refused is answered from the catalogue"],
  ["clouddriver-forwarding", clouddriverForwarding, "access-control", "what is forwarded needs the same credentials"],
  ["routes", serviceRoutes, "error-handling", "every route answers its errors from the catalogue"],
];

for (const [name, plugin, before, why] of ORDER) {
  t.test(`${name} is refused before ${before}: ${why}`, async (t) => {
    const app = Fastify();
    t.teardown(() => app.close());
    // Refused before the plugin runs, so it needs no options.
    await t.rejects(
      async () => {
        await app.register(plugin, {} as never);
        await app.ready();
      },
      { message: new RegExp(`^The dependency '${before}' of plugin '${name}' is not registered`) },
    );
  });
}
