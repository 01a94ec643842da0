// /ready says whether this replica can serve. What every replica shares (Azure, slow or out of reach for all) is shown
// in its answer and on /metrics, and never makes it unready: behind a Service, every replica would be taken out at
// once while each could still answer task reads. What is its own (its event loop, its task store) does.
// Real HTTP, the real simulator behind a link that a test spoils as networks do.
import t from "tap";
import { faultyLink } from "../testkit/faulty-link.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { startTestEnv, demo } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

t.test("Azure out of reach for everyone: /ready stays ready and shows it; task reads are answered", async (t) => {
  // The link's target is read at each connection: the simulator's port is set once it listens.
  const simulator = { host: "127.0.0.1", port: 0 };
  const link = await faultyLink(simulator);
  t.teardown(() => link.close());
  const env = await startTestEnv({
    env: { READY_CACHE_MS: "0", READY_TIMEOUT_MS: "3000" },
    mapEnv: (e, sim) => {
      simulator.port = Number(new URL(sim.url).port);
      return { ...e, SIMULATOR_URL: sim.url.replace(/:\d+$/, `:${link.port}`) };
    },
  });
  t.teardown(() => env.close());
  const before = await waitFor(
    async () => {
      const r = await env.api("GET", "/ready");
      return r.body?.accounts?.demo?.ok === true && r.status === 200 && r;
    },
    { what: "a check of the demo account through the link" },
  );
  t.equal(before.status, 200);
  t.same(before.body.accounts.demo, { ok: true }, "Azure reached through the link");
  const submitted = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 0, max: 5, desired: 2 } }),
  );
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));

  link.blackHole();
  let seen: Json;
  const during = await waitFor(
    async () => {
      const r = await env.api("GET", "/ready");
      seen = r;
      return r.body?.accounts?.demo?.ok === false && r.status === 200 && r;
    },
    // A busy machine may hold this replica's loop up once (then not ready, rightly): ready again once it turns.
    { what: "ready, with a check of the demo account that found it out of reach", seen: () => seen },
  );
  t.equal(during.status, 200, `ready while Azure is out of reach: ${JSON.stringify(during.body)}`);
  t.equal(during.body.status, "ready");
  t.same(during.body.store, { ok: true });
  t.type(during.body.accounts.demo.problem, "string", "the answer names what Azure did");
  const metrics = await (await fetch(`${env.baseUrl}/metrics`)).text();
  t.match(metrics, /^vmssops_azure_account_reachable\{account="demo"\} 0$/m, "and /metrics");
  if (submitted.status === 202) {
    const read = await env.api("GET", `/task/${submitted.body.id}`);
    t.equal(read.status, 200, "the task is read meanwhile");
  }
  link.heal();
});

t.test("this replica's event loop held up past READY_TIMEOUT_MS: not ready, and says why", async (t) => {
  const env = await startTestEnv({ env: { READY_CACHE_MS: "0", READY_TIMEOUT_MS: "1000" } });
  t.teardown(() => env.close());
  // A first check: what start-up held the loop up by is behind it (a busy machine's, whatever it was).
  await env.service.app.inject({ method: "GET", url: "/ready" });
  // Held up in-process for a known time, longer than the bound: no wall clock of the machine's is asserted on.
  const until = performance.now() + 1500;
  while (performance.now() < until);
  const held = await env.service.app.inject({ method: "GET", url: "/ready" });
  t.equal(held.statusCode, 503, held.body);
  t.equal(held.json().eventLoop.ok, false);
  t.match(held.json().eventLoop.problem, /held up \d+ ms/);
  t.ok(held.headers["retry-after"], "with Retry-After");
});
