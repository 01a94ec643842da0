// The service's embedded simulator keeps its world in SIMULATOR_STATE_DIR, as `vmss-sim --state` does: a scale set
// put into it before the service is stopped is there, with the same ETag, after the service starts again.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { SimulatorControl } from "vmss-simulator";
import { freePort, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";

t.test("SIMULATOR_STATE_DIR: the embedded simulator's world outlives a restart of the service", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-sim-state-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const simPort = await freePort();
  const env = { SIMULATOR: "embedded", SIMULATOR_PORT: String(simPort), SIMULATOR_STATE_DIR: dir };
  const control = () =>
    new SimulatorControl({ url: `https://127.0.0.1:${simPort}`, caPem: readFileSync(SIMULATOR_CA_FILE, "utf8") });

  const first = await startChildService(env);
  t.teardown(() => first.child.kill("SIGKILL"));
  const before = control();
  await before.putScaleSet("demo-rg", "kept-by-service", { capacity: 2 });
  const etag = (await before.getScaleSet("demo-rg", "kept-by-service")).etag;
  await before.close();
  first.child.kill("SIGTERM");
  await first.exited;

  const second = await startChildService(env);
  t.teardown(() => second.child.kill("SIGKILL"));
  const after = control();
  t.teardown(() => after.close());
  const kept = await after.getScaleSet("demo-rg", "kept-by-service");
  t.equal(kept.etag, etag, "the same scale set, the same ETag");
  t.equal(kept.vms.length, 2);
});
