// The status page's inventory lists an account's server groups where the service keeps them: `{application}-{region}`
// unless the account sets serverGroupResourceGroup: account (SERVER_GROUP_RESOURCE_GROUP_RULE). An account that names
// a defaultResourceGroup only for scale sets outside Spinnaker's naming still shows its applications' groups.
import t from "tap";
import { startTestEnv } from "./helpers/service.ts";
import { SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";

const ACCOUNTS = JSON.stringify([
  {
    name: "apps",
    subscriptionId: SIMULATOR_SUBSCRIPTION_ID,
    defaultResourceGroup: "demo-rg",
    regions: ["eastus"],
    credential: "simulator",
  },
]);

t.test(
  "an account with a defaultResourceGroup and the application rule lists {application}-{region} groups",
  async (t) => {
    const env = await startTestEnv({ env: { ACCOUNTS } });
    t.teardown(() => env.close());
    const put = await env.simControl("PUT", "/_sim/scaleSets/shop-eastus/shop-prod-v001", { capacity: 2 });
    t.equal(put.status, 201, "the simulator made shop-prod-v001 in shop-eastus");

    const inventory = await env.api<{
      accounts: {
        name: string;
        problem?: string;
        clusters: { name: string; serverGroups: { name: string; resourceGroup: string }[] }[];
      }[];
    }>("GET", "/ui/api/inventory");
    t.equal(inventory.status, 200);
    const apps = inventory.body.accounts.find((a) => a.name === "apps");
    t.ok(apps, "the account is listed");
    t.notOk(apps?.problem, "and could be listed");
    const groups = (apps?.clusters ?? []).flatMap((c) => c.serverGroups.map((g) => `${g.resourceGroup}/${g.name}`));
    t.ok(
      groups.includes("shop-eastus/shop-prod-v001"),
      `shop-prod-v001 in shop-eastus is shown (shown: ${groups.join(", ")})`,
    );
  },
);
