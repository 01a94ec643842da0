// The status page in a real browser (Debian's chromium driven by playwright-core): a running task with its
// retries, its live history, a scale set's capacity and instances, and access control as the page sees it.
import t from "tap";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { demo, startTestEnv } from "./helpers/service.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const TOKEN = "oncall-page-token-0123456789";
const OTHER = "other-team-token-0123456789";
/** Where the screenshot goes (kept after the run so a person can look at it). */
export const SCREENSHOT = join(tmpdir(), "vmss-ops-status-page.png");

if (!existsSync(CHROMIUM) && !process.env.CI) {
  t.test("the status page in a browser", { skip: `no browser at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH` }, () => {});
} else {
  t.test("the status page shows a running task, its retries and live history, and a scale set", async (t) => {
    const team = "team-b";
    const env = await startTestEnv({
      writeDurationMs: 8000,
      headers: { authorization: `Bearer ${TOKEN}` },
      env: {
        ACCOUNTS: JSON.stringify([{ name: team, subscriptionId: "00000000-0000-4000-8000-000000000001", defaultResourceGroup: "demo-rg", serverGroupResourceGroup: "account", credential: "simulator" }]),
        AUTH_TOKENS: JSON.stringify([
          { name: "oncall", token: TOKEN, accounts: ["demo"] },
          { name: "other", token: OTHER, accounts: [team] },
        ]),
      },
    });
    t.teardown(() => env.close());

    const profile = await mkdtemp(join(tmpdir(), "vmss-ops-chromium-"));
    t.teardown(() => rm(profile, { recursive: true, force: true }));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      viewport: { width: 1280, height: 800 },
    });
    t.teardown(() => browser.close());
    const page = browser.pages()[0] ?? (await browser.newPage());
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(String(err)));

    await page.goto(`${env.baseUrl}/ui`);
    // Without a token the page says so (the API answered 401).
    await page.locator("#notice", { hasText: "needs a token" }).waitFor({ timeout: 10_000 });
    await page.fill("#token", TOKEN);
    await page.click("#token-form button[type=submit]");

    await page.locator("h2", { hasText: "In flight (0)" }).waitFor();

    // Two 500s on the write: two retries before the write is accepted, then a write that takes a while.
    await env.simControl("POST", "/_sim/faults", { method: "PATCH", pathContains: "virtualMachineScaleSets/web-prod-v001", status: 500, code: "InternalServerError", count: 2 });
    const submitted = await env.api("POST", "/azure/ops/resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 4 } }));
    t.equal(submitted.status, 202);
    const id: string = submitted.body.id;

    const row = page.locator(`tr[data-task="${id}"]`);
    await row.locator('[data-state="running"]').waitFor({ timeout: 15_000 }).catch(async (err) => {
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      throw err;
    });
    await row.locator('td[data-retries="2"]').waitFor({ timeout: 15_000 });
    const text = await row.innerText();
    t.match(text, /resizeServerGroup web-prod-v001/);
    t.match(text, /\(demo\)/);
    t.match(text, /2 \(500 InternalServerError, 500 InternalServerError\)/, "the retries and their status");
    t.match(await row.locator("td[data-attempt]").innerText(), /^3$/, "the third attempt runs");
    t.match(await page.locator("h2", { hasText: "In flight" }).innerText(), /In flight \(1\)/);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    t.pass(`screenshot: ${SCREENSHOT}`);

    // The filter by scale set and account.
    await page.fill("#filters input[name=serverGroup]", "batch-v001");
    await page.click("#filters button[type=submit]");
    await page.locator("h2", { hasText: "In flight (0)" }).waitFor();
    t.equal(await page.locator(`tr[data-task="${id}"]`).count(), 0, "filtered out by scale set");
    await page.goto(`${env.baseUrl}/ui#/?account=demo&serverGroup=web-prod-v001`);
    await page.locator(`tr[data-task="${id}"]`).waitFor();

    // The task page: history as it happens, until the task succeeds.
    await page.click(`tr[data-task="${id}"] a[href^="#/task/"]`);
    await page.locator("#history").waitFor();
    const historyText = await page.locator("#history").innerText();
    t.match(historyText, /attempt 1\/\d+: 500 InternalServerError/);
    t.match(historyText, /attempt 2\/\d+: 500 InternalServerError/);
    await page.locator('#task-state [data-state="succeeded"]').waitFor({ timeout: 30_000 });
    t.match(await page.locator("#history").innerText(), /Orchestration completed\./, "the live history reached the end");
    t.match(await page.locator("#task-retries").innerText(), /^2 /);

    // The scale set's page: capacity, instances and their traffic state.
    await page.click('a[href^="#/sg/"]');
    await page.locator("#capacity").waitFor();
    t.match(await page.locator("#capacity").innerText(), /desired 4/);
    t.equal(await page.locator("#instances tbody tr").count(), 4, "four instances");
    t.match(await page.locator("#instances").innerText(), /in traffic|out of traffic|unknown/);

    // Another team's token: the task is not listed, and its page is refused.
    await page.fill("#token", OTHER);
    await page.click("#token-form button[type=submit]");
    await page.locator("#notice", { hasText: "may not see this" }).waitFor();
    await page.goto(`${env.baseUrl}/ui#/`);
    await page.locator("h2", { hasText: "Recent" }).waitFor();
    t.equal(await page.locator(`tr[data-task="${id}"]`).count(), 0, "another team does not see it");
    t.same(errors, [], "no script errors");
  });
}
