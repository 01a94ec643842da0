// A service started against an external simulator with SIMULATOR_URL only learns the simulator's clock from the
// simulator: at start from its control API, then from every ARM answer (a PUT /_sim/config {"timeScale":…} is
// followed with the next call). `doctor`'s ARM budget check shows what it paces itself by: the budget's refill (the
// writes an hour it allows itself) and the re-reads of a busy scale set.
import t from "tap";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { AZURE_ARM_BUDGETS } from "../src/azure/arm-budget/figures.ts";
import { freePort, SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { waitFor, waitForLog } from "../testkit/wait-for.ts";

interface Checks {
  checks: { check: string; status: string; found: string }[];
}

/** doctor's ARM budget line for the demo account (its reads are ARM calls: their answers state the clock). */
async function budgetLine(service: ChildService): Promise<string> {
  const { status, body } = await service.api<Checks>("GET", "/accounts/demo/checks");
  if (status !== 200) throw new Error(`GET /accounts/demo/checks answered ${status}: ${JSON.stringify(body)}`);
  return body.checks.find((c) => c.check === "ARM budget")?.found ?? "";
}

/** What the line says of a clock at `timeScale`, as the simulator states it. */
function pacedAt(timeScale: number): RegExp {
  const writesAnHour = Math.round((AZURE_ARM_BUDGETS.writes.refillPerMinute * 60) / timeScale);
  const reads = Math.round(12 / timeScale);
  return new RegExp(
    `at most ${writesAnHour} writes.*time scale ${timeScale} \\(as the simulator states it\\): re-reads of a busy scale set within ${reads} a minute`,
  );
}

const serviceEnv = (url: string) => ({
  SIMULATOR_URL: url,
  SIMULATOR_CA_FILE,
  // Not the service's to know: the simulator says it (child-service.ts sets one for an embedded simulator).
  SIMULATOR_TIME_SCALE: "",
  LOG_LEVEL: "info",
});

t.test("the service paces itself by the clock the simulator states, and follows a change", async (t) => {
  const sim = await startSimulator({ port: 0, seed: true, timeScale: 0.002 });
  t.teardown(() => sim.close());
  const service = await startChildService(serviceEnv(sim.url));
  t.teardown(async () => {
    service.child.kill("SIGKILL");
    await service.exited;
  });

  t.match(await budgetLine(service), pacedAt(0.002), "refill and re-reads at the simulator's 0.002");
  t.notMatch(service.output(), /did not state its time scale|SIMULATOR_TIME_SCALE=/, "nothing to warn of");

  await new SimulatorControl(sim).request("PUT", "/_sim/config", { body: { timeScale: 0.004 } });
  const line = await waitFor(
    async () => {
      const found = await budgetLine(service);
      return pacedAt(0.004).test(found) && found;
    },
    { what: "the service to pace itself by the simulator's new clock", seen: () => service.output().slice(-2000) },
  );
  t.match(line, pacedAt(0.004));
  await waitForLog(() => service.output(), /the simulator's clock changed: time scale 0\.004 \(was 0\.002\)/);
});

t.test(
  "SIMULATOR_TIME_SCALE that disagrees with the simulator: the simulator's wins, and the log says so once",
  async (t) => {
    const sim = await startSimulator({ port: 0, seed: true, timeScale: 0.002 });
    t.teardown(() => sim.close());
    const service = await startChildService({ ...serviceEnv(sim.url), SIMULATOR_TIME_SCALE: "0.1" });
    t.teardown(async () => {
      service.child.kill("SIGKILL");
      await service.exited;
    });
    t.match(await budgetLine(service), pacedAt(0.002));
    t.equal(
      service.output().match(/SIMULATOR_TIME_SCALE=0\.1 here, but the simulator at .* runs at time scale 0\.002/g)
        ?.length,
      1,
    );
  },
);

t.test(
  "a simulator that does not answer at start: the service starts at Azure's pace, and learns it later",
  async (t) => {
    const port = await freePort();
    const service = await startChildService(serviceEnv(`https://127.0.0.1:${port}`));
    t.teardown(async () => {
      service.child.kill("SIGKILL");
      await service.exited;
    });
    t.match(
      service.output(),
      /did not state its time scale .*: pacing the ARM budget and re-reads by Azure's own clock \(time scale 1\)/,
    );
    const health = await service.api("GET", "/health");
    t.equal(health.status, 200, "it serves");

    const sim = await startSimulator({ port, seed: true, timeScale: 0.002 });
    t.teardown(() => sim.close());
    const line = await waitFor(
      async () => {
        const found = await budgetLine(service);
        return pacedAt(0.002).test(found) && found;
      },
      {
        what: "the service to learn the clock from the simulator's first answer",
        seen: () => service.output().slice(-2000),
      },
    );
    t.match(line, pacedAt(0.002));
  },
);
