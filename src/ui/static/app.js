// The status page: plain DOM, no framework. Every figure comes from the service's API with the caller's token.
"use strict";
const TOKEN_KEY = "vmss-ops-token";
const view = document.getElementById("view");
const notice = document.getElementById("notice");
let timer;

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
document.getElementById("token").value = token();
document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  render();
});
document.getElementById("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  document.getElementById("token").value = "";
  render();
});

async function api(path) {
  const headers = token() ? { authorization: "Bearer " + token() } : {};
  const res = await fetch(path, { headers });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(body.message || res.statusText), { status: res.status });
  return body;
}

/** el("td", { class: "x" }, "text", childNode…): text is always set as text, never as HTML. */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
}
const time = (ms) => (ms ? new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z") : "");
const stateBadge = (s) => el("span", { class: "state state-" + s, "data-state": s }, s);
const sgHref = (t) => t.resourceGroup ? "#/sg/" + [t.account, t.region, t.resourceGroup, t.serverGroupName].map(encodeURIComponent).join("/") : undefined;
function retriesText(task) {
  if (task.retries.length === 0) return "0";
  return task.retries.length + " (" + task.retries.map((r) => r.status + (r.code ? " " + r.code : "")).join(", ") + ")";
}

function showError(err) {
  notice.hidden = false;
  notice.textContent = err.status === 401 ? "This service needs a token: enter yours above. (" + err.message + ")"
    : err.status === 403 ? "Your token may not see this: " + err.message : "Could not load: " + err.message;
}

function taskRow(t) {
  return el("tr", { "data-task": t.id },
    el("td", {}, el("a", { href: "#/task/" + encodeURIComponent(t.id), class: "mono" }, t.id.slice(0, 8))),
    el("td", {}, stateBadge(t.state)),
    el("td", {}, t.targets.map((x, i) => el("div", {}, x.operation + " ", sgHref(x) ? el("a", { href: sgHref(x) }, x.serverGroupName) : x.serverGroupName, el("span", { class: "muted" }, " (" + x.account + ")")))),
    el("td", {}, el("div", {}, el("b", {}, t.phase)), el("div", { class: "muted" }, t.status)),
    el("td", { "data-attempt": t.attempt }, String(t.attempt)),
    el("td", { class: t.retries.length ? "retry" : "", "data-retries": t.retries.length }, retriesText(t)),
    el("td", { class: "muted" }, time(t.createdAtMs)));
}

function taskTable(tasks, empty) {
  if (tasks.length === 0) return el("p", { class: "muted" }, empty);
  return el("table", {}, el("thead", {}, el("tr", {}, ["task", "state", "operation on scale set (account)", "progress", "attempt", "retries", "created"].map((h) => el("th", {}, h)))), el("tbody", {}, tasks.map(taskRow)));
}

async function listView(params) {
  const q = new URLSearchParams();
  if (params.get("serverGroup")) q.set("serverGroup", params.get("serverGroup"));
  if (params.get("account")) q.set("account", params.get("account"));
  const data = await api("/ui/api/tasks?" + q);
  const filters = el("form", { class: "filters", id: "filters" },
    el("label", {}, "scale set ", el("input", { name: "serverGroup", value: params.get("serverGroup") || "" })),
    el("label", {}, "account ", el("input", { name: "account", value: params.get("account") || "" })),
    el("button", { type: "submit" }, "Filter"));
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(filters);
    const next = new URLSearchParams();
    for (const k of ["serverGroup", "account"]) if (f.get(k)) next.set(k, f.get(k));
    location.hash = "#/?" + next;
  });
  return [filters, el("h2", {}, "In flight (" + data.inFlight.length + ")"), taskTable(data.inFlight, "No task is running."),
    el("h2", {}, "Recent"), taskTable(data.recent, "No recent task.")];
}

async function taskView(id) {
  const t = await api("/ui/api/tasks/" + encodeURIComponent(id));
  const kv = el("div", { class: "kv" },
    el("span", {}, "state"), el("span", { id: "task-state" }, stateBadge(t.state)),
    el("span", {}, "operations"), el("span", {}, t.targets.map((x) => el("div", {}, x.operation + " on ", sgHref(x) ? el("a", { href: sgHref(x) }, x.serverGroupName) : x.serverGroupName, " (" + x.account + ", " + x.region + ")"))),
    el("span", {}, "attempt"), el("span", { id: "task-attempt" }, String(t.attempt)),
    el("span", {}, "retries"), el("span", { id: "task-retries", class: t.retries.length ? "retry" : "" }, retriesText(t)),
    el("span", {}, "ARM calls"), el("span", {}, String(t.armCalls)),
    el("span", {}, "replica"), el("span", { class: "mono" }, t.leaseOwner || "—"),
    el("span", {}, "created"), el("span", {}, time(t.createdAtMs)),
    el("span", {}, "finished"), el("span", {}, time(t.finishedAtMs) || "—"),
    t.failure ? [el("span", {}, "failure"), el("span", { class: "retry" }, t.failure.code + ": " + t.failure.message)] : []);
  const history = el("table", { id: "history" }, el("thead", {}, el("tr", {}, ["time", "phase", "status"].map((h) => el("th", {}, h)))),
    el("tbody", {}, (t.history || []).map((h) => el("tr", {}, el("td", { class: "muted mono" }, time(h.timeMs)), el("td", {}, h.phase), el("td", {}, h.status)))));
  return [el("h2", {}, "Task ", el("span", { class: "mono" }, t.id)), kv, el("h2", {}, "History"), history];
}

async function scaleSetView(account, region, rg, name) {
  const sg = await api("/azure/serverGroups/" + [account, region, rg, name].map(encodeURIComponent).join("/"));
  const traffic = (i) => i.inTraffic === undefined ? "unknown" : i.inTraffic ? "in traffic" : "out of traffic";
  const kv = el("div", { class: "kv" },
    el("span", {}, "capacity"), el("span", { id: "capacity" }, "min " + sg.capacity.min + ", desired " + sg.capacity.desired + ", max " + sg.capacity.max),
    el("span", {}, "disabled"), el("span", {}, sg.disabled ? "yes" + (sg.disabledBy ? " (" + sg.disabledBy + ")" : "") : "no"),
    el("span", {}, "provisioning"), el("span", {}, sg.provisioningState || "—"),
    el("span", {}, "account / region"), el("span", {}, sg.account + " / " + sg.region + " / " + sg.resourceGroup));
  const instances = el("table", { id: "instances" }, el("thead", {}, el("tr", {}, ["instance", "name", "provisioning", "latest model", "traffic"].map((h) => el("th", {}, h)))),
    el("tbody", {}, sg.instances.map((i) => el("tr", {}, el("td", {}, i.instanceId), el("td", {}, i.name || ""), el("td", {}, i.provisioningState || ""), el("td", {}, i.latestModelApplied === undefined ? "" : i.latestModelApplied ? "yes" : "no"), el("td", {}, traffic(i))))));
  return [el("h2", {}, "Scale set " + sg.name), kv, el("h2", {}, "Instances (" + sg.instances.length + ")"), instances,
    el("p", {}, el("a", { href: "#/?serverGroup=" + encodeURIComponent(sg.name) }, "Tasks on this scale set"))];
}

async function render() {
  clearTimeout(timer);
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  let refreshMs = 1000;
  try {
    let content;
    if (parts[0] === "task" && parts[1]) content = await taskView(parts[1]);
    else if (parts[0] === "sg" && parts.length === 5) { content = await scaleSetView(parts[1], parts[2], parts[3], parts[4]); refreshMs = 5000; }
    else content = await listView(new URLSearchParams(query || ""));
    // Keep what the user is typing in the filter form.
    const active = document.activeElement && view.contains(document.activeElement) && document.activeElement.name;
    if (!active) view.replaceChildren(...content);
    notice.hidden = true;
  } catch (err) {
    showError(err);
    refreshMs = 5000;
  }
  timer = setTimeout(render, refreshMs);
}
window.addEventListener("hashchange", render);
render();
