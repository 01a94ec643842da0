// The read cache: concurrent reads share one Azure call, a read within the TTL costs nothing, our writes refresh it.
import t from "tap";
import { CoalescingCache } from "../src/azure/read-cache.ts";
import { callsFor, demo, startTestEnv, type SimCall } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

t.test("CoalescingCache", async (t) => {
  let now = 1000;
  const cache = new CoalescingCache<string>({ ttlMs: 100, now: () => now });

  await t.test("concurrent gets share one fetch, and a get within the TTL fetches nothing", async (t) => {
    let fetches = 0;
    const pending = deferred<string>();
    const fetch = () => {
      fetches++;
      return pending.promise;
    };
    const gets = Array.from({ length: 10 }, () => cache.get("a", fetch));
    pending.resolve("v1");
    const results = await Promise.all(gets);
    t.equal(fetches, 1);
    t.same(
      results.map((r) => r.value),
      Array(10).fill("v1"),
    );
    t.equal(results[0].readAt, 1000, "readAt is when Azure was asked");
    now += 99;
    t.equal((await cache.get("a", fetch)).value, "v1");
    t.equal(fetches, 1, "still fresh");
    now += 1;
    const later = cache.get("a", () => {
      fetches++;
      return Promise.resolve("v2");
    });
    t.equal((await later).value, "v2", "expired after ttlMs");
    t.equal(fetches, 2);
  });

  await t.test("invalidate: the next get fetches, and a fetch under way when it happened is not kept", async (t) => {
    const slow = deferred<string>();
    const first = cache.get("b", () => slow.promise);
    cache.invalidate("b");
    const second = cache.get("b", () => Promise.resolve("after-write"));
    slow.resolve("before-write");
    t.equal((await first).value, "before-write", "who asked before the write gets what was read before it");
    t.equal((await second).value, "after-write");
    t.equal(
      (await cache.get("b", () => Promise.resolve("unexpected"))).value,
      "after-write",
      "what is kept is the read made after the write",
    );
  });

  await t.test("a failed fetch is not kept; put keeps only what is fresher", async (t) => {
    await t.rejects(
      cache.get("c", async () => Promise.reject(new Error("503"))),
      /503/,
    );
    t.equal((await cache.get("c", () => Promise.resolve("ok"))).value, "ok", "the failure was not cached");
    cache.put("c", "older", now - 50);
    t.equal((await cache.get("c", () => Promise.resolve("unexpected"))).value, "ok");
    cache.put("c", "newer", now + 1);
    now += 1;
    t.equal((await cache.get("c", () => Promise.resolve("unexpected"))).value, "newer");
    cache.invalidate("c");
    cache.put("c", "read before the write", now - 1);
    t.equal(
      (await cache.get("c", () => Promise.resolve("fresh"))).value,
      "fresh",
      "a read that began before an invalidation is not kept",
    );
  });
});

t.test("CoalescingCache drops what can serve nothing, and stays correct without it", async (t) => {
  let now = 0;
  // A reader's interest no longer than the TTL: an entry goes with its value.
  const cache = new CoalescingCache<string>({ ttlMs: 100, interestMs: 100, now: () => now });
  for (const key of ["a", "b", "c"]) await cache.get(key, () => Promise.resolve(`${key}1`));
  t.equal(cache.size, 3);
  now = 100;
  await cache.get("d", () => Promise.resolve("d1"));
  t.equal(cache.size, 1, "the expired entries went as the cache was used a TTL later");

  // A read under way when its scale set was written, ending after the entry was dropped, is never served.
  const slow = deferred<string>();
  const before = cache.get("e", () => slow.promise);
  now = 150;
  cache.invalidate("e");
  now = 240;
  await cache.get("f", () => Promise.resolve("f1"));
  t.equal(cache.size, 2, "d has gone; the invalidated entry is kept for a TTL after its invalidation");
  now = 260;
  await cache.get("g", () => Promise.resolve("g1"));
  now = 400;
  await cache.get("h", () => Promise.resolve("h1"));
  t.equal(cache.size, 1, "then it goes too");
  slow.resolve("read before the write");
  t.equal((await before).value, "read before the write", "its caller gets what it read");
  cache.put("e", "read before the write", 100);
  t.equal(
    (await cache.get("e", () => Promise.resolve("fresh"))).value,
    "fresh",
    "a late put of what was read before the write is expired on arrival",
  );
  t.equal(
    (await cache.get("e", () => Promise.resolve("unexpected"))).value,
    "fresh",
    "and what is kept is the fresh read",
  );
});

t.test("CoalescingCache keeps a value read elsewhere only for a key a reader asked for lately", async (t) => {
  let now = 0;
  const cache = new CoalescingCache<string>({ ttlMs: 100, interestMs: 1_000, now: () => now });
  cache.put("unwatched", "read by an operation");
  t.equal(cache.size, 0, "nobody asked for it: nothing is kept");
  t.equal((await cache.get("unwatched", () => Promise.resolve("fetched"))).value, "fetched");

  await cache.get("watched", () => Promise.resolve("v1"));
  now = 500; // the value has expired; the reader's interest has not
  cache.put("watched", "read by an operation", 500);
  t.equal(
    (await cache.get("watched", () => Promise.resolve("unexpected"))).value,
    "read by an operation",
    "kept for the reader who asked 500 ms ago",
  );

  now = 1_600; // more than interestMs after the last get
  await cache.get("other", () => Promise.resolve("o1")); // the cache in use: what can serve nothing is dropped
  cache.put("watched", "read much later", 1_600);
  t.equal(
    (await cache.get("watched", () => Promise.resolve("fetched again"))).value,
    "fetched again",
    "nobody asked for a while: not kept",
  );
  t.equal(cache.size, 2);

  now = 1_750;
  await cache.get("other", () => Promise.resolve("o2"));
  cache.put("watched", "within the interest", 1_750);
  now = 1_900;
  await cache.get("other", () => Promise.resolve("o3"));
  t.equal(cache.size, 2, "an expired value goes, the entry of a key still of interest stays");
});

t.test("through the service, against the simulator", async (t) => {
  // A long TTL: anything fresh in these tests comes from coalescing or from a write's refresh, not from expiry.
  const env = await startTestEnv({ writeDurationMs: 100, env: { READ_CACHE_TTL_MS: "60000" } });
  t.teardown(() => env.close());
  const scaleSetGets = (calls: SimCall[], name: string) =>
    callsFor(calls, name).filter((c) => c.method === "GET" && c.path.endsWith(`/${name}`));
  const vmLists = (calls: SimCall[], name: string) =>
    callsFor(calls, name).filter((c) => c.method === "GET" && c.path.endsWith("/virtualMachines"));

  await t.test("20 concurrent reads of one server group make one Azure GET and one VM listing", async (t) => {
    await env.simControl("DELETE", "/_sim/calls");
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => env.api("GET", "/serverGroups/demo/eastus/web-prod-v001")),
    );
    t.same(
      reads.map((r) => r.status),
      Array(20).fill(200),
    );
    const calls = await env.calls();
    t.equal(scaleSetGets(calls, "web-prod-v001").length, 1, JSON.stringify(calls));
    t.equal(vmLists(calls, "web-prod-v001").length, 1);
    const settings = calls.filter((c) => c.method === "GET" && /\/autoscalesettings$/i.test(c.path));
    t.equal(settings.length, 1, "one listing of the resource group's autoscale settings (the group's min and max)");
    t.equal(calls.length, 3, "nothing else");
    const again = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
    t.equal(again.status, 200);
    t.equal((await env.calls()).length, 3, "a read within the TTL costs no Azure call");
  });

  await t.test("the answer states its freshness", async (t) => {
    const res = await fetch(`${env.baseUrl}/serverGroups/demo/eastus/web-prod-v001`);
    const readAt = Date.parse(res.headers.get("x-azure-read-at") ?? "");
    t.ok(readAt <= Date.now() && Date.now() - readAt < 60_000, "X-Azure-Read-At is when Azure was read");
    t.match(res.headers.get("age"), /^\d+$/);
  });

  await t.test("our own write refreshes it: the read after a resize shows Azure's new capacity at once", async (t) => {
    const before = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v002");
    t.equal(before.body.capacity.desired, 3);
    const submitted = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v002", { capacity: { min: 1, max: 6, desired: 5 } }),
    );
    const task = await env.waitForTask(submitted.body.id);
    t.equal(task.status.failed, false);
    await env.simControl("DELETE", "/_sim/calls");
    const after = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v002");
    t.same(after.body.capacity, { min: 1, max: 6, desired: 5 });
    t.equal(after.body.instances.length, 5, "the VMs as Azure lists them after the write");
    // Not the 60 s old entry: the resize's own confirming read (scale set and VMs, after the write) replaced it.
    t.equal(
      vmLists(await env.calls(), "web-prod-v002").length,
      0,
      "served from the resize's confirming read, which costs no further Azure call",
    );
  });

  await t.test("an operation's fresh read is shared: the read after a disable costs no Azure call", async (t) => {
    const submitted = await env.api("POST", "/azure/ops/disableServerGroup", demo("web-prod-v001"));
    const task = await env.waitForTask(submitted.body.id);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    await env.simControl("DELETE", "/_sim/calls");
    const after = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
    t.equal(after.body.disabled, true);
    t.ok(
      after.body.instances.every((i: Json) => i.healthState === "OutOfService"),
      JSON.stringify(after.body.instances),
    );
    t.same(await env.calls(), [], "the disable's last read (after its rollout) answered");
  });

  await t.test(
    "a resize refreshes the scale set, not the resource group's listing; a destroy refreshes both",
    async (t) => {
      const cluster = () => env.api("GET", "/applications/web/clusters/demo/web-prod/azure");
      const listings = (calls: SimCall[]) =>
        calls.filter((c) => c.method === "GET" && c.path.endsWith("/virtualMachineScaleSets"));
      t.same(
        (await cluster()).body.serverGroups.map((sg: Json) => sg.name),
        ["web-prod-v001", "web-prod-v002"],
      );
      const resize = await env.api(
        "POST",
        "/azure/ops/resizeServerGroup",
        demo("web-prod-v002", { capacity: { min: 1, max: 6, desired: 2 } }),
      );
      t.equal((await env.waitForTask(resize.body.id)).status.failed, false);
      await env.simControl("DELETE", "/_sim/calls");
      const afterResize = await cluster();
      t.same(
        afterResize.body.serverGroups.map((sg: Json) => sg.instances.length),
        [3, 2],
        "the resized one read again",
      );
      t.same(listings(await env.calls()), [], "no new listing: a resize changes no name, region or creation time");
      const destroy = await env.api("POST", "/azure/ops/destroyServerGroup", demo("web-prod-v001"));
      t.equal((await env.waitForTask(destroy.body.id)).status.failed, false);
      await env.simControl("DELETE", "/_sim/calls");
      t.same(
        (await cluster()).body.serverGroups.map((sg: Json) => sg.name),
        ["web-prod-v002"],
        "the destroyed one is gone at once",
      );
      t.equal(listings(await env.calls()).length, 1, "listed again after the delete");
    },
  );

  await t.test(
    "a change by another tool shows once the TTL passes, or at once after Orca's force-cache refresh",
    async (t) => {
      await env.simControl("PATCH", "/_sim/scaleSets/demo-rg/batch-v001", { capacity: 1 });
      const warm = await env.api("GET", "/serverGroups/demo/eastus/batch-v001");
      t.equal(warm.body.capacity.desired, 1);
      await env.simControl("PATCH", "/_sim/scaleSets/demo-rg/batch-v001", { capacity: 2 });
      t.equal(
        (await env.api("GET", "/serverGroups/demo/eastus/batch-v001")).body.capacity.desired,
        1,
        "cached within the TTL",
      );
      const refresh = await env.api("POST", "/cache/azure/ServerGroup", {
        account: "demo",
        region: "eastus",
        serverGroupName: "batch-v001",
        asgName: "batch-v001",
        zone: null,
      });
      t.equal(refresh.status, 200, "200: applied at once, Orca does not poll for it");
      t.same((await env.api("GET", "/cache/azure/ServerGroup")).body, [], "no pending refreshes");
      t.equal((await env.api("GET", "/serverGroups/demo/eastus/batch-v001")).body.capacity.desired, 2);
    },
  );
});
