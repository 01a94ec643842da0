// The status page: plain DOM, no framework, no inline script (the page's Content-Security-Policy forbids it). Every
// figure comes from the service's API with the caller's token, which lives in this script's memory only: never in
// storage, so nothing another script or a later visitor could read.
"use strict";
const view = document.getElementById("view");
const notice = document.getElementById("notice");
const tokenInput = document.getElementById("token");
let token = "";
let timer;
/** Service clock minus ours, from the last list answer: times shown relative to now use the service's clock. */
let skewMs = 0;

document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = tokenInput.value.trim();
  render();
});
document.getElementById("forget").addEventListener("click", () => {
  token = "";
  tokenInput.value = "";
  render();
});

async function api(path, method) {
  const headers = token ? { authorization: "Bearer " + token } : {};
  const res = await fetch(path, { method: method || "GET", headers, cache: "no-store", credentials: "omit" });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(body.message || res.statusText), { status: res.status });
  return body;
}

/** el("td", { class: "x" }, "text", childNode…): text is always set as text, never as HTML. */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {}))
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}
const now = () => Date.now() + skewMs;
const time = (ms) =>
  ms
    ? new Date(ms)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z")
    : "";
const clock = (ms) => new Date(ms).toISOString().slice(11, 19) + "Z";
/** Today's times as a clock, older ones with their date; the full time on hover. */
const when = (ms) =>
  el(
    "span",
    { title: time(ms) },
    new Date(ms).toISOString().slice(0, 10) === new Date(now()).toISOString().slice(0, 10) ? clock(ms) : time(ms),
  );
function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}
const OUTCOME_TEXT = {
  queued: "queued",
  running: "running",
  retrying: "retrying",
  succeeded: "succeeded",
  failed: "failed",
  canceled: "canceled",
};
const outcomeBadge = (t) =>
  el(
    "span",
    { class: "badge o-" + t.outcome, "data-outcome": t.outcome, "data-state": t.state },
    OUTCOME_TEXT[t.outcome] || t.outcome,
  );
const sgHref = (x) =>
  x.resourceGroup
    ? "#/sg/" + [x.account, x.region, x.resourceGroup, x.serverGroupName].map(encodeURIComponent).join("/")
    : undefined;
const sgLink = (x) => (sgHref(x) ? el("a", { href: sgHref(x) }, x.serverGroupName) : x.serverGroupName);

let noticeTimer;
function showNotice(text, ok) {
  clearTimeout(noticeTimer);
  notice.hidden = false;
  notice.className = ok ? "ok" : "";
  notice.textContent = text;
  // A confirmation has said what it had to; an error stays until the next successful load.
  if (ok)
    noticeTimer = setTimeout(() => {
      notice.hidden = true;
      notice.className = "";
    }, 8000);
}
function showError(err) {
  showNotice(
    err.status === 401
      ? "This service needs a token: enter yours above. (" + err.message + ")"
      : err.status === 403
        ? "Your token may not see this: " + err.message
        : "Could not load: " + err.message,
  );
}

/** Step k of n, attempt k/n (the history's own count), and what it waits for until when. */
function progressLine(t) {
  const bits = [];
  if (t.step)
    bits.push(
      el(
        "span",
        { "data-step": t.step.number + "/" + t.step.of },
        (t.step.unit === "batch" ? "batch " : "step ") +
          t.step.number +
          " of " +
          t.step.of +
          (t.step.name ? " (" + t.step.name + ")" : ""),
      ),
    );
  if (t.attempt > 0)
    bits.push(el("span", { "data-attempt": t.attempt + "/" + t.attempts }, "attempt " + t.attempt + "/" + t.attempts));
  if (t.waiting) {
    const until = t.waiting.untilMs
      ? " until " + clock(t.waiting.untilMs) + " (" + duration(t.waiting.untilMs - now()) + " left)"
      : " since " + clock(t.waiting.sinceMs);
    bits.push(el("span", { class: "waiting" }, "waiting for " + t.waiting.for + until));
  }
  bits.push(
    el("span", { "data-elapsed": t.elapsedMs }, (t.finishedAtMs ? "took " : "elapsed ") + duration(t.elapsedMs)),
  );
  return el("div", { class: "progress" }, bits);
}

/** The attempts (top lane) and the writes, waits and backoffs within them (bottom lane), across the task's life. */
function timeline(t, big) {
  const start = t.createdAtMs;
  const end = Math.max(t.finishedAtMs || now(), start + 1000);
  const span = end - start;
  const bar = el("div", {
    class: "timeline" + (big ? " big" : ""),
    role: "img",
    "aria-label": "timeline of attempts, waits and writes",
  });
  for (const s of t.timeline) {
    const from = Math.max(0, (s.fromMs - start) / span);
    const to = Math.min(1, ((s.toMs || end) - start) / span);
    const lane2 = s.kind === "write" || s.kind === "wait" || s.kind === "backoff";
    const cls = ["seg", s.kind, lane2 ? "lane2" : "", s.kind === "attempt" && s.attempt % 2 ? "odd" : "", s.ended || ""]
      .filter(Boolean)
      .join(" ");
    const seg = el(
      "span",
      {
        class: cls,
        title: s.label + " (" + clock(s.fromMs) + (s.toMs ? "–" + clock(s.toMs) : ", going on") + ")",
        "data-kind": s.kind,
      },
      big && s.kind === "attempt" ? String(s.attempt) : "",
    );
    // CSSOM, not a style attribute: the page's policy allows no inline style.
    seg.style.left = (from * 100).toFixed(2) + "%";
    seg.style.width = (Math.max(0, to - from) * 100).toFixed(2) + "%";
    bar.append(seg);
  }
  return bar;
}
const legend = () =>
  el(
    "div",
    { class: "legend" },
    [
      ["queued", "queued"],
      ["attempt", "attempt"],
      ["attempt retry", "attempt that will be retried"],
      ["attempt failed", "failed attempt"],
      ["write", "write (Azure working)"],
      ["wait", "waiting"],
      ["backoff", "backoff before a retry"],
    ].map(([cls, text]) => el("span", {}, el("i", { class: "seg " + cls }), text)),
  );

function actionButtons(t) {
  const out = [];
  if (t.actions.resume)
    out.push(el("button", { type: "button", class: "primary", "data-action": "resume", "data-task": t.id }, "Resume"));
  if (t.actions.cancel)
    out.push(
      el(
        "button",
        {
          type: "button",
          class: "danger",
          "data-action": "cancel",
          "data-task": t.id,
          disabled: t.cancelRequestedAtMs !== undefined,
        },
        t.cancelRequestedAtMs ? "Canceling…" : "Cancel",
      ),
    );
  if (out.length === 0 && t.actions.why)
    out.push(el("span", { class: "muted small", title: t.actions.why }, "read-only for you"));
  return el("div", { class: "actions" }, out);
}

view.addEventListener("click", async (e) => {
  const button = e.target.closest("button[data-action]");
  if (!button) return;
  const id = button.getAttribute("data-task");
  const action = button.getAttribute("data-action");
  if (
    action === "cancel" &&
    !window.confirm(
      "Cancel task " +
        id +
        "? It stops at its next safe point; a write Azure has accepted is followed to its end first.",
    )
  )
    return;
  button.disabled = true;
  try {
    await api(
      action === "resume"
        ? "/task/" + encodeURIComponent(id) + ":resume"
        : "/task/" + encodeURIComponent(id) + "/cancel",
      "POST",
    );
    showNotice(
      action === "resume"
        ? "Task " + id + " resumed: it runs again from a fresh read."
        : "Cancel requested for task " + id + ".",
      true,
    );
  } catch (err) {
    showNotice("Could not " + action + " task " + id + ": " + err.message);
  }
  render(true);
});

const TASK_COLUMNS = ["task", "outcome", "operation on scale set", "progress", "timeline", "actions"];
function taskRow(t) {
  return el(
    "tr",
    { "data-task": t.id },
    el(
      "td",
      { "data-label": "task" },
      el("a", { href: "#/task/" + encodeURIComponent(t.id), class: "mono" }, t.id.slice(0, 8)),
      el("div", { class: "muted small" }, when(t.createdAtMs)),
      t.who && el("div", { class: "muted small who" }, t.who),
    ),
    el("td", { "data-label": "outcome" }, outcomeBadge(t)),
    el(
      "td",
      { "data-label": "operation on scale set" },
      t.targets.map((x) =>
        el("div", {}, x.operation + " ", sgLink(x), el("span", { class: "muted" }, " (" + x.account + ")")),
      ),
    ),
    el(
      "td",
      { "data-label": "progress", class: "summary" },
      el("div", { class: t.outcome === "failed" ? "failure" : t.outcome === "retrying" ? "retry" : "" }, t.summary),
      progressLine(t),
    ),
    el("td", { "data-label": "timeline" }, timeline(t, false)),
    el(
      "td",
      { "data-label": "actions", class: t.actions.resume || t.actions.cancel || t.actions.why ? "" : "empty" },
      actionButtons(t),
    ),
  );
}
function taskTable(tasks, empty, id) {
  if (tasks.length === 0) return el("p", { class: "muted", id }, empty);
  return el(
    "table",
    { class: "cards", id },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        TASK_COLUMNS.map((h) => el("th", {}, h)),
      ),
    ),
    el("tbody", {}, tasks.map(taskRow)),
  );
}

const FILTERS = [
  ["serverGroup", "scale set"],
  ["account", "account"],
  ["operation", "operation"],
  ["id", "task id"],
];
async function listView(params) {
  const q = new URLSearchParams();
  for (const [k] of FILTERS) if (params.get(k)) q.set(k, params.get(k));
  for (const k of ["cursor", "limit"]) if (params.get(k)) q.set(k, params.get(k));
  const data = await api("/ui/api/tasks?" + q);
  skewMs = data.nowMs - Date.now();
  const filters = el(
    "form",
    { class: "filters", id: "filters", role: "search" },
    FILTERS.map(([k, label]) =>
      el("label", {}, label + " contains", el("input", { name: k, value: params.get(k) || "", type: "search" })),
    ),
    el("button", { type: "submit" }, "Filter"),
    el("a", { href: "#/" }, "clear"),
  );
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(filters);
    const next = new URLSearchParams();
    for (const [k] of FILTERS) if (f.get(k)) next.set(k, f.get(k));
    if (params.get("limit")) next.set("limit", params.get("limit"));
    location.hash = "#/?" + next;
  });
  const pageLink = (cursor) => {
    const p = new URLSearchParams(params);
    p.delete("cursor");
    if (cursor) p.set("cursor", cursor);
    return "#/?" + p;
  };
  const pager = el(
    "div",
    { class: "pager" },
    params.get("cursor") ? el("a", { href: pageLink(undefined), id: "newest" }, "← newest") : null,
    data.nextCursor
      ? el("a", { href: pageLink(data.nextCursor), id: "older" }, "older →")
      : el("span", { class: "muted small" }, "no older tasks"),
  );
  const out = [filters];
  if (!params.get("cursor"))
    out.push(
      el("h2", {}, "In flight (" + data.inFlight.length + ")"),
      taskTable(data.inFlight, "No task is running or queued.", "in-flight"),
    );
  out.push(
    el("h2", {}, params.get("cursor") ? "Older tasks" : "Recent"),
    taskTable(data.recent, "No finished task here.", "recent"),
    pager,
    legend(),
  );
  return out;
}

async function taskView(id) {
  const t = await api("/ui/api/tasks/" + encodeURIComponent(id));
  const kv = el(
    "div",
    { class: "kv" },
    el("span", {}, "outcome"),
    el("span", { id: "task-outcome" }, outcomeBadge(t)),
    el("span", {}, "now"),
    el("span", { id: "task-summary", class: t.outcome === "failed" ? "failure" : "" }, t.summary),
    el("span", {}, "progress"),
    el("span", { id: "task-progress" }, progressLine(t)),
    el("span", {}, "operations"),
    el(
      "span",
      {},
      t.targets.map((x) => el("div", {}, x.operation + " on ", sgLink(x), " (" + x.account + ", " + x.region + ")")),
    ),
    el("span", {}, "who"),
    el("span", { id: "task-who" }, t.who || "—"),
    el("span", {}, "retries"),
    el(
      "span",
      { id: "task-retries", class: t.retries.length ? "retry" : "" },
      t.retries.length === 0
        ? "0"
        : t.retries.length + " (" + t.retries.map((r) => r.status + (r.code ? " " + r.code : "")).join(", ") + ")",
    ),
    el("span", {}, "ARM calls"),
    el("span", {}, String(t.armCalls)),
    el("span", {}, "replica"),
    el("span", { class: "mono" }, t.leaseOwner || "—"),
    el("span", {}, "created"),
    el("span", {}, time(t.createdAtMs)),
    el("span", {}, "finished"),
    el("span", {}, time(t.finishedAtMs) || "—"),
    t.failure
      ? [
          el("span", {}, "failure"),
          el(
            "span",
            { class: "failure", id: "task-failure" },
            t.failure.code + ": " + t.failure.message + (t.failure.retryable ? " (resumable)" : ""),
          ),
        ]
      : [],
    el("span", {}, "actions"),
    el("span", { id: "task-actions" }, actionButtons(t)),
  );
  const history = el(
    "table",
    { id: "history", class: "cards" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["time", "phase", "status"].map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      (t.history || []).map((h) =>
        el(
          "tr",
          {},
          el("td", { class: "muted mono", "data-label": "time" }, when(h.timeMs)),
          el("td", { "data-label": "phase", class: "phase" }, h.phase),
          el("td", { "data-label": "status" }, h.status),
        ),
      ),
    ),
  );
  return [
    el("h2", {}, "Task ", el("span", { class: "mono" }, t.id)),
    kv,
    el("h2", {}, "Timeline"),
    el("div", { id: "task-timeline" }, timeline(t, true)),
    legend(),
    el("h2", {}, "History"),
    history,
  ];
}

/** An account's last check result (GET /checks/latest, as vmss-ops doctor last ran), or how to run one. */
function checksLine(checks, account) {
  const c = (checks || []).find((x) => x.account === account);
  if (!c)
    return el(
      "p",
      { class: "checks muted", "data-checks": "none", "data-checks-account": account },
      "Checks: none since this replica started (vmss-ops doctor --account " + account + ")",
    );
  const named = [];
  if (c.failing.length) named.push("failing: " + c.failing.join(", "));
  if (c.warning.length) named.push("warning: " + c.warning.join(", "));
  return el(
    "p",
    { class: "checks checks-" + c.status.toLowerCase(), "data-checks": c.status, "data-checks-account": account },
    "Checks: ",
    el("strong", {}, c.status),
    " at ",
    when(Date.parse(c.checkedAt)),
    named.length ? " \u2014 " + named.join("; ") : "",
  );
}

async function inventoryView(params) {
  const q = new URLSearchParams();
  for (const k of ["account", "serverGroup"]) if (params.get(k)) q.set(k, params.get(k));
  const data = await api("/ui/api/inventory?" + q);
  // The inventory shows without them when the checks cannot be read.
  const checks = await api("/checks/latest").then(
    (d) => d.accounts,
    () => null,
  );
  const filters = el(
    "form",
    { class: "filters", id: "inventory-filters", role: "search" },
    el(
      "label",
      {},
      "account contains",
      el("input", { name: "account", value: params.get("account") || "", type: "search" }),
    ),
    el(
      "label",
      {},
      "scale set contains",
      el("input", { name: "serverGroup", value: params.get("serverGroup") || "", type: "search" }),
    ),
    el("button", { type: "submit" }, "Filter"),
  );
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(filters);
    const next = new URLSearchParams();
    for (const k of ["account", "serverGroup"]) if (f.get(k)) next.set(k, f.get(k));
    location.hash = "#/inventory?" + next;
  });
  const out = [filters];
  if (data.accounts.length === 0) out.push(el("p", { class: "muted" }, "No account you may read matches."));
  for (const a of data.accounts) {
    out.push(
      el(
        "h2",
        { "data-account": a.name },
        "Account " + a.name,
        a.readAtMs ? el("span", { class: "muted small" }, " (read " + clock(a.readAtMs) + ")") : null,
      ),
    );
    out.push(checksLine(checks, a.name));
    if (a.problem) out.push(el("p", { class: "failure" }, a.problem));
    else if (a.clusters.length === 0) out.push(el("p", { class: "muted" }, "No scale sets."));
    for (const c of a.clusters) {
      out.push(
        el(
          "section",
          { class: "inv-cluster", "data-cluster": c.name },
          el("h3", {}, "Cluster " + c.name),
          el(
            "table",
            { class: "cards" },
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                ["server group", "region", "capacity (min/desired/max)", "in traffic", "state", "last task"].map((h) =>
                  el("th", {}, h),
                ),
              ),
            ),
            el(
              "tbody",
              {},
              c.serverGroups.map((g) =>
                el(
                  "tr",
                  { "data-server-group": g.name },
                  el(
                    "td",
                    { "data-label": "server group" },
                    el(
                      "a",
                      { href: "#/sg/" + [a.name, g.region, g.resourceGroup, g.name].map(encodeURIComponent).join("/") },
                      g.name,
                    ),
                  ),
                  el("td", { "data-label": "region" }, g.region, el("div", { class: "muted small" }, g.resourceGroup)),
                  el(
                    "td",
                    {
                      "data-label": "capacity",
                      "data-capacity": g.capacity.min + "/" + g.capacity.desired + "/" + g.capacity.max,
                    },
                    g.capacity.min + " / " + g.capacity.desired + " / " + g.capacity.max,
                  ),
                  el(
                    "td",
                    { "data-label": "in traffic", "data-in-traffic": g.inTraffic + "/" + g.instances },
                    g.inTraffic + " of " + g.instances + " instances",
                  ),
                  el(
                    "td",
                    { "data-label": "state" },
                    g.disabled
                      ? el("span", { class: "badge o-canceled" }, "disabled")
                      : el("span", { class: "badge o-succeeded" }, "enabled"),
                    g.provisioningState && g.provisioningState !== "Succeeded"
                      ? el("div", { class: "muted small" }, g.provisioningState)
                      : null,
                  ),
                  el(
                    "td",
                    { "data-label": "last task" },
                    g.lastTask
                      ? [
                          el(
                            "a",
                            { href: "#/task/" + encodeURIComponent(g.lastTask.id), class: "mono" },
                            g.lastTask.id.slice(0, 8),
                          ),
                          " ",
                          el("span", { class: "badge o-" + g.lastTask.state }, g.lastTask.state),
                          el("div", { class: "muted small" }, g.lastTask.operation + ", " + time(g.lastTask.atMs)),
                        ]
                      : el("span", { class: "muted" }, "—"),
                  ),
                ),
              ),
            ),
          ),
        ),
      );
    }
  }
  return out;
}

async function scaleSetView(account, region, rg, name) {
  const sg = await api("/azure/serverGroups/" + [account, region, rg, name].map(encodeURIComponent).join("/"));
  const traffic = (i) => (i.inTraffic === undefined ? "unknown" : i.inTraffic ? "in traffic" : "out of traffic");
  const kv = el(
    "div",
    { class: "kv" },
    el("span", {}, "capacity"),
    el(
      "span",
      { id: "capacity" },
      "min " + sg.capacity.min + ", desired " + sg.capacity.desired + ", max " + sg.capacity.max,
    ),
    el("span", {}, "disabled"),
    el("span", {}, sg.disabled ? "yes" + (sg.disabledBy ? " (" + sg.disabledBy + ")" : "") : "no"),
    el("span", {}, "provisioning"),
    el("span", {}, sg.provisioningState || "—"),
    el("span", {}, "account / region"),
    el("span", {}, sg.account + " / " + sg.region + " / " + sg.resourceGroup),
  );
  const instances = el(
    "table",
    { id: "instances", class: "cards" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["instance", "name", "provisioning", "latest model", "traffic"].map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      sg.instances.map((i) =>
        el(
          "tr",
          {},
          el("td", { "data-label": "instance" }, i.instanceId),
          el("td", { "data-label": "name" }, i.name || ""),
          el("td", { "data-label": "provisioning" }, i.provisioningState || ""),
          el(
            "td",
            { "data-label": "latest model" },
            i.latestModelApplied === undefined ? "" : i.latestModelApplied ? "yes" : "no",
          ),
          el("td", { "data-label": "traffic" }, traffic(i)),
        ),
      ),
    ),
  );
  return [
    el("h2", {}, "Scale set " + sg.name),
    kv,
    el("h2", {}, "Instances (" + sg.instances.length + ")"),
    instances,
    el("p", {}, el("a", { href: "#/?serverGroup=" + encodeURIComponent(sg.name) }, "Tasks on this scale set")),
  ];
}

/** force: re-render even while the user types in a form (after an action). */
async function render(force) {
  clearTimeout(timer);
  // A page nobody looks at asks nothing: it catches up when shown again.
  if (document.hidden && force !== true) return;
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query || "");
  document.getElementById("nav-tasks").classList.toggle("current", parts[0] !== "inventory" && parts[0] !== "sg");
  document.getElementById("nav-inventory").classList.toggle("current", parts[0] === "inventory" || parts[0] === "sg");
  let refreshMs = 1000;
  try {
    let content;
    if (parts[0] === "task" && parts[1]) content = await taskView(parts[1]);
    else if (parts[0] === "sg" && parts.length === 5) {
      content = await scaleSetView(parts[1], parts[2], parts[3], parts[4]);
      refreshMs = 5000;
    } else if (parts[0] === "inventory") {
      content = await inventoryView(params);
      refreshMs = 5000;
    } else content = await listView(params);
    // Keep what the user is typing in a filter form.
    const typing =
      document.activeElement && view.contains(document.activeElement) && document.activeElement.tagName === "INPUT";
    if (force === true || !typing) {
      view.replaceChildren(...content);
      // What is shown, for whoever waits for it (a person sees it; a test reads it).
      view.setAttribute("data-rendered", location.hash || "#/");
    }
    if (!notice.classList.contains("ok")) notice.hidden = true;
  } catch (err) {
    showError(err);
    refreshMs = 5000;
  }
  timer = setTimeout(render, refreshMs);
}
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) render();
});
window.addEventListener("hashchange", () => {
  notice.hidden = true;
  notice.className = "";
  render(true);
});
render();
