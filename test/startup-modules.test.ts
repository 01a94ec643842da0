// Start-up loads only what the configuration needs: with an external simulator and SQLite, neither the embedded
// simulator nor @azure/identity nor pg is loaded, without CLOUDDRIVER_URL no undici, and no Swagger until /docs is
// asked for (each costs start-up time; see docs/task-stores.md). The Azure SDK loads before it listens.
import t from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 0, timeScale: 0.001, seed: true });
t.teardown(() => sim.close());

t.test(
  "external simulator, SQLite, no Clouddriver: no embedded simulator, no @azure/identity, no pg, no undici, no Swagger",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-startup-"));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const service = await startChildService({
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "sqlite",
      DATA_DIR: dataDir,
      NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "log-module-loads.mjs")}`,
    });
    t.teardown(() => service.child.kill("SIGKILL"));
    // A task end to end, so the Azure client and the task path are loaded too.
    const res = await service.api("POST", "/azure/ops/resizeServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      capacity: { min: 1, max: 5, desired: 3 },
    });
    t.equal(res.status, 202);
    t.equal((await service.waitForTask(res.body.id)).state, "succeeded");
    const loaded = service
      .output()
      .split("\n")
      .filter((l) => l.startsWith("module-load "))
      .map((l) => l.slice("module-load ".length));
    t.ok(
      loaded.some((u) => u.includes("/src/tasks/sqlite-task-store.ts")),
      "the hook sees the modules (the SQLite store is one)",
    );
    t.ok(
      loaded.some((u) => u.includes("/@azure/arm-compute/")),
      "and the Azure client",
    );
    // The simulator's settings module (through the package's entry for it, settings.js) is read with the service's
    // configuration (one SimulatorConfig type); it is plain parsing and loads nothing of the simulator itself.
    const settings = ["/vmss-simulator/settings.js", "/vmss-simulator/src/settings.ts"];
    t.same(
      loaded.filter((u) => u.includes("/vmss-simulator/") && !settings.some((s) => u.endsWith(s))),
      [],
      "no embedded simulator",
    );
    t.same(
      loaded.filter((u) => u.includes("/@azure/identity/")),
      [],
      "no @azure/identity",
    );
    t.same(
      loaded.filter((u) => /\/node_modules\/pg(-[a-z]+)?\//.test(u)),
      [],
      "no pg",
    );
    t.same(
      loaded.filter((u) => u.includes("/node_modules/undici/")),
      [],
      "no undici (only forwarding to Clouddriver uses it)",
    );
    t.same(
      loaded.filter((u) => u.includes("/node_modules/@fastify/swagger")),
      [],
      "no @fastify/swagger or @fastify/swagger-ui",
    );
    // The Azure SDK loads before the service listens (src/app.ts warm()): its first claim would load it at once, while
    // the first requests waited (test/warm-before-listen.test.ts).
    const events = service
      .output()
      .split("\n")
      .filter((l) => l.startsWith("module-load ") || l.startsWith(`server-listening ${new URL(service.url).port}`));
    const listening = events.findIndex((l) => l.startsWith("server-listening "));
    t.ok(listening > 0, "the hook sees the service start listening");
    t.ok(
      events.slice(0, listening).some((l) => /\/@azure\/(arm-compute|core-rest-pipeline)\//.test(l)),
      "the Azure SDK before it listens",
    );
    service.child.kill("SIGTERM");
    await service.exited;
  },
);
