import { startTestEnv } from "./helpers/service.ts";
const env = await startTestEnv({ logger: { level: "error" } });
const body = {
  credentials: "demo",
  region: "eastus",
  application: "web",
  stack: "prod",
  source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v002" },
};
const r = await env.api("POST", "/azure/ops/cloneServerGroup?dryRun=true", body);
console.log(r.status, JSON.stringify(r.body).slice(0, 2000));
await env.close();
