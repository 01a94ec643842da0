// What the replica does before it listens (src/server.ts: warm() loads the Azure SDK and compiles the schemas, then the
// compile cache is written) holds its event loop, but no request waited through it: nothing was listening. So it is
// not counted as a held-up loop once it listens — not by /ready (503 when the loop was held longer than
// READY_TIMEOUT_MS since the last check), not by shedding (503 Overloaded for a request that waited longer than
// OVERLOAD_MAX_EVENT_LOOP_DELAY_MS). A loaded CI run saw a fresh replica's first /ready answer 503 for it.
import t from "tap";
import { join } from "node:path";
import { startSimulator } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 0, timeScale: 0.001, seed: true });
t.teardown(() => sim.close());

t.test("a warm-up longer than the bounds: the first /ready is 200 and the first request is served", async (t) => {
  const service = await startChildService({
    SIMULATOR_URL: sim.url,
    SIMULATOR_CA_FILE,
    TASK_STORE: "memory",
    // The warm-up's SDK load takes 1.5 s of CPU (longer on a loaded machine): above both bounds.
    NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "slow-sdk-load.mjs")}`,
    SLOW_SDK_LOAD_MS: "1500",
    READY_TIMEOUT_MS: "1000",
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "1000",
  });
  t.teardown(() => service.child.kill("SIGKILL"));
  const ready = await service.api("GET", "/ready");
  t.equal(ready.status, 200, `ready once it listens: ${JSON.stringify(ready.body)}`);
  const read = await service.api("GET", "/task?limit=1");
  t.equal(read.status, 200, `the first request is served, not shed: ${JSON.stringify(read.body)}`);
});
