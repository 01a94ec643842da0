// The status page in a real browser (Debian's chromium driven by playwright-core): tasks with their live progress
// (attempt k/n as the history counts it, what they wait for until when, a timeline), outcome colours, resume and
// cancel driven through the page with the principal's rights, the inventory of scale sets with each account's last
// check result, substring filters and paging, the page's security headers and a token kept in memory only, and its
// layout at 800 px and at a phone's width: screenshots are kept in test-artifacts/ (not committed) and the layout is
// checked by assertions.
import t from "tap";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { demo, startTestEnv } from "./helpers/service.ts";
import { REPO } from "../testkit/child-service.ts";
import type { PageGlobals } from "./helpers/page-globals.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const TOKEN = "oncall-page-token-0123456789";
const READER = "reader-page-token-0123456789";
const OTHER = "other-team-token-0123456789";
/** Where the screenshots go (gitignored; kept after the run so a person can look at them). */
export const ARTIFACTS = join(REPO, "test-artifacts", "status-page");
const WIDTHS = { desktop: 800, phone: 390 } as const;

/** What overflows the window: the page scrolling sideways, or any element reaching past either edge. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // In the browser (this file is type-checked without the DOM's types).
    const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
    const problems: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width)
      problems.push(
        `the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in a ${width} px window`,
      );
    for (const node of document.body.querySelectorAll("*")) {
      // The timeline clips its own segments on purpose.
      if (node.closest(".timeline") && !node.classList.contains("timeline")) continue;
      const r = node.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const name = `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ""}${node.className && typeof node.className === "string" ? `.${node.className.split(" ").join(".")}` : ""}`;
      if (r.right > width + 0.5 || r.left < -0.5)
        problems.push(`${name} spans ${Math.round(r.left)}..${Math.round(r.right)} px in a ${width} px window`);
      // Text cut off: an element whose content is wider than its box, where the box hides the rest.
      const style = getComputedStyle(node);
      if (
        !["INPUT", "TEXTAREA", "SELECT"].includes(node.tagName) &&
        (style.overflowX === "hidden" || style.overflowX === "clip") &&
        node.scrollWidth > node.clientWidth + 1 &&
        !node.classList.contains("timeline")
      )
        problems.push(`${name} cuts off its content`);
    }
    return problems;
  });
}

/** The last "attempt k/n" the history shows, as the harness wrote it. */
function lastAttemptInHistory(historyText: string): string | undefined {
  return [...historyText.matchAll(/attempt (\d+\/\d+):/g)].at(-1)?.[1];
}

if (!existsSync(CHROMIUM) && !process.env.CI) {
  t.test(
    "the status page in a browser",
    { skip: `no browser at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH` },
    () => {},
  );
} else {
  t.test("the status page: progress, outcomes, actions, inventory, filters, paging, layout, headers", async (t) => {
    const team = "team-b";
    const env = await startTestEnv({
      writeDurationMs: 6000,
      headers: { authorization: `Bearer ${TOKEN}` },
      env: {
        // Backoffs long enough to be seen on the page, and few attempts, so that a task can fail resumably.
        RETRY_MAX_ATTEMPTS: "3",
        RETRY_TRANSIENT_BASE_DELAY_MS: "4000",
        RETRY_MAX_DELAY_MS: "6000",
        ACCOUNTS: JSON.stringify([
          {
            name: team,
            subscriptionId: "00000000-0000-4000-8000-000000000001",
            defaultResourceGroup: "demo-rg",
            serverGroupResourceGroup: "account",
            credential: "simulator",
          },
        ]),
        AUTH_TOKENS: JSON.stringify([
          { name: "oncall", token: TOKEN, accounts: ["demo"] },
          { name: "reader", token: READER, accounts: ["demo"], readOnly: true },
          { name: "other", token: OTHER, accounts: [team] },
        ]),
      },
    });
    t.teardown(() => env.close());
    await mkdir(ARTIFACTS, { recursive: true });

    // / leads to the page; the page and the API docs carry their security headers.
    const root = await fetch(`${env.baseUrl}/`, { redirect: "manual" });
    t.equal(root.status, 302);
    t.equal(root.headers.get("location"), "/ui");
    for (const path of ["/ui", "/ui/app.js", "/docs"]) {
      const res = await fetch(`${env.baseUrl}${path}`);
      t.equal(res.status, 200, path);
      const csp = res.headers.get("content-security-policy") ?? "";
      t.match(csp, /frame-ancestors 'none'/, `${path}: no framing`);
      t.match(csp, /script-src 'self'(;|$)/, `${path}: scripts only from this service, none inline`);
      t.equal(res.headers.get("x-content-type-options"), "nosniff", `${path}: nosniff`);
      t.equal(res.headers.get("referrer-policy"), "no-referrer", `${path}: no Referer`);
      await res.arrayBuffer();
    }

    const profile = await mkdtemp(join(tmpdir(), "vmss-ops-chromium-"));
    t.teardown(() => rm(profile, { recursive: true, force: true }));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: WIDTHS.desktop, height: 900 },
    });
    t.teardown(() => browser.close());
    const page = browser.pages()[0] ?? (await browser.newPage());
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(String(err)));
    // A Content-Security-Policy violation is reported on the console.
    page.on("console", (m) => {
      if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) errors.push(m.text());
    });
    page.on("dialog", (d) => void d.accept());
    const shoot = async (name: string) => {
      for (const [label, width] of Object.entries(WIDTHS)) {
        await page.setViewportSize({ width, height: 900 });
        // A re-render at the new width (the page refreshes every second anyway).
        await page.waitForTimeout(300);
        const path = join(ARTIFACTS, `${name}-${label}-${width}px.png`);
        await page.screenshot({ path, fullPage: true });
        t.same(await layoutProblems(page), [], `${name} at ${width} px: nothing overflows or is cut off (${path})`);
      }
      await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
    };
    const useToken = async (token: string) => {
      await page.fill("#token", token);
      await page.click("#token-form button[type=submit]");
    };

    await page.goto(`${env.baseUrl}/`);
    t.match(page.url(), /\/ui$/, "/ leads to the page");
    // Without a token the page says so (the API answered 401).
    await page.locator("#notice", { hasText: "needs a token" }).waitFor({ timeout: 15_000 });
    await useToken(TOKEN);
    await page.locator("h2", { hasText: "In flight (0)" }).waitFor();
    t.equal(
      await page.evaluate(
        () =>
          (globalThis as unknown as PageGlobals).sessionStorage.length +
          (globalThis as unknown as PageGlobals).localStorage.length,
      ),
      0,
      "the token is kept in memory, not in storage",
    );

    // A resize whose first two writes get a 500: attempts 1 and 2 are retried after a visible backoff, the third writes.
    await env.simControl("POST", "/_sim/faults", {
      method: "PATCH",
      pathContains: "virtualMachineScaleSets/web-prod-v001",
      status: 500,
      code: "InternalServerError",
      count: 2,
    });
    const resized = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 4 } }),
    );
    t.equal(resized.status, 202);
    const id: string = resized.body.id;
    // A resize whose three writes all meet another writer (409): it ends failed after its three attempts (a conflict
    // is retried RETRY_MAX_ATTEMPTS times; Azure's "not now" answers would be retried until the deadline), resumably.
    await env.simControl("POST", "/_sim/faults", {
      method: "PATCH",
      pathContains: "virtualMachineScaleSets/web-prod-v002",
      status: 409,
      code: "Conflict",
      count: 3,
    });
    const doomed = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v002", { capacity: { min: 1, max: 6, desired: 3 } }),
    );
    const doomedId: string = doomed.body.id;

    // A list of two operations on another scale set, to read its steps at the end.
    const list = await env.api("POST", "/azure/ops", [
      { resizeServerGroup: demo("batch-v001", { capacity: { min: 1, max: 4, desired: 3 } }) },
      { resizeServerGroup: demo("batch-v001", { capacity: { min: 1, max: 4, desired: 2 } }) },
    ]);
    t.equal(list.status, 202, JSON.stringify(list.body));

    // Retrying is amber, not failed: the row says which attempt, what it waits for and until when. One snapshot of
    // the row, taken once it shows a backoff, so that every assertion reads the same render.
    const backoff = await page
      .waitForFunction(
        (taskId) => {
          const row = (globalThis as unknown as PageGlobals).document.querySelector(
            `#in-flight tr[data-task="${taskId}"]`,
          );
          if (!row || !/waiting for the backoff/.test(row.innerText)) return undefined;
          const badge = row.querySelector(".badge");
          return {
            text: row.innerText,
            attempt: row.querySelector("[data-attempt]")?.getAttribute("data-attempt") as string,
            summary: row.querySelector("td.summary div")?.innerText as string,
            outcome: badge?.getAttribute("data-outcome") as string,
            colour: (globalThis as unknown as PageGlobals).getComputedStyle(badge).backgroundColor,
          };
        },
        id,
        { timeout: 30_000, polling: 100 },
      )
      .then((h) => h.jsonValue());
    t.equal(backoff?.outcome, "retrying");
    t.not(backoff?.colour, "rgb(255, 235, 233)", "not the failed colour");
    t.match(backoff?.text, /waiting for the backoff before attempt (\d) until \d\d:\d\d:\d\dZ \(\d+ s left\)/);
    t.match(backoff?.summary, /^attempt (\d)\/3: 500 InternalServerError, retrying in [\d.]+ s$/);
    const failedAttempt = /^attempt (\d)\/3/.exec(backoff?.summary ?? "")?.[1];
    t.equal(
      backoff?.attempt,
      `${failedAttempt}/3`,
      "the attempt shown is the one that failed, as the history says, not the next",
    );
    t.match(backoff?.text, `waiting for the backoff before attempt ${Number(failedAttempt) + 1} until`);
    await shoot("tasks-retrying");

    // The task's page, sampled until the third attempt writes: whenever it shows a backoff or a write, the attempt it
    // shows is the history's last (it was one ahead during a backoff).
    await page.click(`#in-flight tr[data-task="${id}"] a[href^="#/task/"]`);
    await page.locator("#history").waitFor();
    const samples: { shown: string; inHistory?: string; progress: string }[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const [shown, historyText, progress] = await page.evaluate(() => {
        const doc = (globalThis as unknown as PageGlobals).document;
        return [
          doc.querySelector("#task-progress [data-attempt]")?.getAttribute("data-attempt") ?? "",
          doc.querySelector("#history")?.textContent ?? "",
          doc.querySelector("#task-progress")?.textContent ?? "",
        ];
      });
      samples.push({ shown, inHistory: lastAttemptInHistory(historyText), progress });
      if (/^3\/3$/.test(shown) && /waiting for Azure to carry out/.test(progress)) break;
      await page.waitForTimeout(200);
    }
    const telling = samples.filter((s) => /waiting for (the backoff|Azure to carry out)/.test(s.progress));
    t.ok(
      telling.some((s) => /waiting for Azure to carry out/.test(s.progress) && s.shown === "3/3"),
      "the third attempt's write was seen",
    );
    for (const s of telling)
      t.equal(
        s.shown,
        s.inHistory,
        `the page shows attempt ${s.shown} and the history's last line attempt ${s.inHistory} (${s.progress})`,
      );
    t.ok(
      (await page.locator("#task-timeline .seg.attempt.retry").count()) >= 1,
      "the timeline shows an attempt that was retried",
    );
    t.ok((await page.locator("#task-timeline .seg.backoff").count()) >= 1, "and its backoff");
    t.match(
      await page.locator("#task-progress").innerText(),
      /waiting for Azure to carry out: set capacity/,
      "what it waits for: the write Azure is doing",
    );
    await shoot("task-writing");

    // A second resize of the same scale set waits its turn (queued): cancel it through the page.
    const queued = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 8, desired: 5 } }),
    );
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).location.hash = "#/"));
    const queuedRow = page.locator(`#in-flight tr[data-task="${queued.body.id}"]`);
    await queuedRow.locator('[data-outcome="queued"]').waitFor();
    t.match(await queuedRow.innerText(), /waiting for a replica to take it/);
    await queuedRow.locator('button[data-action="cancel"]').click();
    await page.locator("#notice", { hasText: "Cancel requested" }).waitFor();
    await page
      .locator(`#recent tr[data-task="${queued.body.id}"] [data-outcome="canceled"]`)
      .waitFor({ timeout: 15_000 });
    t.equal(
      (await env.api("GET", `/task/${queued.body.id}`)).body.status.failed,
      true,
      "canceled, as Clouddriver says it",
    );

    // The first resize succeeds; its row tells the outcome, not "Orchestration completed.".
    const done = page.locator(`#recent tr[data-task="${id}"]`);
    await done.locator('[data-outcome="succeeded"]').waitFor({ timeout: 60_000 });
    t.match(await done.locator("td.summary").innerText(), /^Done: /);
    t.notMatch(await done.locator("td.summary").innerText(), /Orchestration completed/);

    // The doomed resize fails (red), resumably: a read-only principal sees no button, the on-call one resumes it.
    const failedRow = page.locator(`#recent tr[data-task="${doomedId}"]`);
    await failedRow.locator('[data-outcome="failed"]').waitFor({ timeout: 60_000 });
    t.equal(
      await failedRow
        .locator(".badge")
        .evaluate((n) => (globalThis as unknown as PageGlobals).getComputedStyle(n).backgroundColor),
      "rgb(255, 235, 233)",
      "failed is red",
    );
    t.match(await failedRow.locator("td.summary").innerText(), /409 Conflict/);
    await shoot("tasks-failed");
    await useToken(READER);
    await failedRow.locator("text=read-only for you").waitFor();
    t.equal(
      await failedRow.locator('button[data-action="resume"]').count(),
      0,
      "a read-only principal has no resume button",
    );
    await useToken(TOKEN);
    await failedRow.locator('button[data-action="resume"]').click();
    await page.locator("#notice", { hasText: "resumed" }).waitFor();
    await page.locator(`tr[data-task="${doomedId}"] [data-outcome="succeeded"]`).waitFor({ timeout: 60_000 });

    // The list: step k of n, the last of its two when it has ended.
    const listTask = await env.waitForTask(list.body.id, 60_000);
    t.equal(listTask.status.completed && !listTask.status.failed, true);
    const listView = await env.api("GET", `/ui/api/tasks/${list.body.id}`);
    t.same(listView.body.step, { number: 2, of: 2, unit: "operation", name: "resizeServerGroup" });
    await page.evaluate(
      (taskId) => ((globalThis as unknown as PageGlobals).location.hash = `#/task/${taskId}`),
      list.body.id,
    );
    t.equal(await page.locator("#task-progress [data-step]").getAttribute("data-step"), "2/2");
    t.match(await page.locator("#task-progress").innerText(), /step 2 of 2 \(resizeServerGroup\)/);
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).location.hash = "#/"));

    // Substring filters; paging through the recent tasks one at a time.
    await page.fill("#filters input[name=serverGroup]", "PROD-v00");
    await page.click("#filters button[type=submit]");
    await page.locator('#view[data-rendered="#/?serverGroup=PROD-v00"]').waitFor();
    t.equal(await page.locator("#recent tr[data-task]").count(), 3, "a substring, any case, matches the three");
    await page.fill("#filters input[name=serverGroup]", "v002");
    await page.click("#filters button[type=submit]");
    await page.locator('#view[data-rendered="#/?serverGroup=v002"]').waitFor();
    t.same(
      await page.locator("#recent tr[data-task]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-task"))),
      [doomedId],
    );
    const firstPage = await env.api("GET", "/ui/api/tasks?limit=1");
    t.equal(firstPage.body.recent.length, 1);
    t.type(firstPage.body.nextCursor, "string", "a cursor to the next page");
    const secondPage = await env.api(
      "GET",
      `/ui/api/tasks?limit=1&cursor=${encodeURIComponent(firstPage.body.nextCursor)}`,
    );
    t.not(secondPage.body.recent[0]?.id, firstPage.body.recent[0]?.id, "the next page holds older tasks");
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).location.hash = "#/?limit=1"));
    await page.locator("#older").click();
    await page.locator("h2", { hasText: "Older tasks" }).waitFor();
    await page.locator("#newest").waitFor();

    // The last check of each account (doctor's, here a FAIL the simulator sets up) beside the account.
    await env.simControl("PUT", "/_sim/subscription/permissions", {
      deny: [{ action: "Microsoft.Compute/virtualMachineScaleSets/write" }],
    });
    t.equal((await env.api("GET", "/accounts/demo/checks?resourceGroup=demo-rg")).body.status, "FAIL");
    await env.simControl("PUT", "/_sim/subscription/permissions", { deny: [] });

    // The inventory: accounts, clusters, server groups with capacity, instances in traffic and the last task.
    await page.click("#nav-inventory");
    const v001 = page.locator('tr[data-server-group="web-prod-v001"]');
    await v001.waitFor({ timeout: 15_000 });
    const checks = page.locator('p[data-checks-account="demo"]');
    t.equal(await checks.getAttribute("data-checks"), "FAIL", "the account's last check result");
    t.match(await checks.innerText(), /^Checks: FAIL at .+ failing: permissions on demo-rg/);
    t.equal(await v001.locator("[data-capacity]").getAttribute("data-capacity"), "1/4/8");
    t.match(await v001.locator("[data-in-traffic]").getAttribute("data-in-traffic"), /^\d+\/4$/);
    t.match(await v001.innerText(), new RegExp(queued.body.id.slice(0, 8)), "its last task (the canceled one)");
    t.ok((await page.locator('section[data-cluster="web-prod"]').count()) === 1, "grouped by cluster");
    await shoot("inventory");
    await page.fill("#inventory-filters input[name=serverGroup]", "V002");
    await page.click("#inventory-filters button[type=submit]");
    await page.locator('tr[data-server-group="web-prod-v001"]').waitFor({ state: "detached" });
    t.equal(await page.locator('tr[data-server-group="web-prod-v002"]').count(), 1);

    // A scale set's page: capacity, instances and their traffic state.
    await page.click('tr[data-server-group="web-prod-v002"] a[href^="#/sg/"]');
    await page.locator("#capacity").waitFor();
    t.match(await page.locator("#capacity").innerText(), /desired 3/);
    t.equal(await page.locator("#instances tbody tr").count(), 3);

    // Another team's token: the tasks are not listed, their pages are refused.
    await useToken(OTHER);
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).location.hash = "#/"));
    await page.locator("h2", { hasText: "Recent" }).waitFor();
    t.equal(await page.locator(`tr[data-task="${id}"]`).count(), 0, "another team does not see it");
    await page.evaluate((taskId) => ((globalThis as unknown as PageGlobals).location.hash = `#/task/${taskId}`), id);
    await page.locator("#notice", { hasText: "may not see this" }).waitFor();

    // The API docs render under their policy.
    await page.goto(`${env.baseUrl}/docs`);
    await page.locator(".swagger-ui .info .title").waitFor({ timeout: 30_000 });
    t.same(errors, [], "no script errors and no policy violations");
  });
}
