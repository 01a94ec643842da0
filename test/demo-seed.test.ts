// The demo's seeded scale sets are a cluster Orca resolves targets on (web-prod: current and previous). Each must have
// its own creation time, oldest first by version, so the choice is decided by createdTime as Clouddriver decides it
// (ClusterController.OLDEST_TO_NEWEST), never by the name that breaks a tie.
import t from "tap";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { chooseTarget } from "../src/clouddriver/targets.ts";

t.test("the seeded scale sets were created one after another, v001 before v002", async (t) => {
  const now = Date.parse("2026-01-15T12:00:00Z");
  const sim = await startSimulator({ port: 0, seed: true, now: () => now });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  const createdAt = new Map<string, number>();
  for (const name of ["batch-v001", "web-prod-v001", "web-prod-v002"]) {
    const { vmss } = await control.getScaleSet("demo-rg", name);
    createdAt.set(name, Date.parse((vmss.properties as { timeCreated: string }).timeCreated));
  }
  const created = (name: string) => createdAt.get(name)!;
  const times = [...createdAt.values()];
  t.equal(
    new Set(times).size,
    3,
    `three distinct creation times: ${times.map((ms) => new Date(ms).toISOString()).join(", ")}`,
  );
  t.ok(created("web-prod-v001") < created("web-prod-v002"), "web-prod-v001 is older than web-prod-v002");
  t.ok(
    times.every((ms) => ms <= now),
    "none was created in the future",
  );

  const cluster = ["web-prod-v002", "web-prod-v001"].map((name) => ({
    name,
    region: "eastus",
    createdTime: created(name),
    disabled: false,
    instanceCount: 3,
  }));
  const pick = (target: "CURRENT" | "PREVIOUS") =>
    chooseTarget(cluster, target, "eastus", { onlyEnabled: false, validateOldest: false });
  t.match(pick("CURRENT"), { ok: true, serverGroup: { name: "web-prod-v002" } }, "current is the newer");
  t.match(pick("PREVIOUS"), { ok: true, serverGroup: { name: "web-prod-v001" } }, "previous is the older");
});
