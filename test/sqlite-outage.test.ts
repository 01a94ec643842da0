// SQLite's own failures are outages, not bugs: a real SQLite store whose database another connection holds locked
// (SQLITE_BUSY past the store's busy timeout, as on a disk too slow or a file another process holds) answers
// submissions 503 TaskStoreUnavailable with Retry-After, never 500 InternalError, and takes them again once free.
import t from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { startSimulator } from "vmss-simulator";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";

const sim = await startSimulator({ port: 0, timeScale: 0.001 });
t.teardown(() => sim.close());
const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-sqlite-outage-"));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

void t.test(
  "SQLITE_BUSY past its timeout: 503 with Retry-After, not 500; submissions taken again once free",
  async (t) => {
    const config = loadConfig({ SIMULATOR_URL: sim.url, TASK_STORE: "sqlite", DATA_DIR: dataDir });
    for (const a of config.accounts) if (a.credential.kind === "simulator") a.caPem = sim.caPem;
    const store = await SqliteTaskStore.open({ dataDir, busyTimeoutMs: 20 });
    const service = await buildApp({ config, store, logger: false });
    t.teardown(() => service.close());
    const submit = (id: string) =>
      service.app.inject({
        method: "POST",
        url: `/azure/ops/resizeServerGroup?clientRequestId=${id}`,
        payload: {
          credentials: "demo",
          region: "eastus",
          serverGroupName: "batch-v001",
          capacity: { min: 0, max: 5, desired: 1 },
        },
      });

    const holder = new DatabaseSync(join(dataDir, "tasks.db"));
    holder.exec("BEGIN EXCLUSIVE");
    const refused = await submit("sqlite-busy");
    t.equal(refused.statusCode, 503, "503, not 500");
    t.equal(refused.headers["retry-after"], "5", "with Retry-After");
    t.match(refused.json(), { error: "TaskStoreUnavailable", message: /SQLITE_BUSY/ });
    holder.exec("ROLLBACK");
    holder.close();

    const taken = await submit("sqlite-busy");
    t.equal(taken.statusCode, 202, "taken once the database is free");
  },
);
