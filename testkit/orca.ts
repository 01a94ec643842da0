// An Orca-like client: the calls Orca's Azure server-group stages make to Clouddriver, and the decisions its tasks
// take on the answers, step by step as spinnaker/orca's source has them (paths under orca-clouddriver/src/main/).
// Each function names the file and lines it follows. Only what Orca does on the wire and decides from it is here;
// its queueing and persistence are not.
import { createHash } from "node:crypto";
import type { Json } from "./json.ts";

export type Api = <T = Json>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

export class OrcaStageError extends Error {
  override name = "OrcaStageError";
}

export interface Health {
  type: string;
  healthClass?: string;
  state: string;
}
export interface Instance {
  name: string;
  launchTime?: number;
  healthState?: string;
  health?: Health[];
}
/** pipeline/instance/TerminatingInstance.groovy: an instance id and the launch time first read for it. */
export interface TerminatingInstance {
  id: string;
  launchTime?: number;
}
/** model/SearchResultSet.java */
export interface SearchResultSet {
  totalMatches: number;
  pageNumber: number;
  pageSize: number;
  platform: string;
  query: string;
  results: Record<string, Json>[];
}
export interface ServerGroup {
  name: string;
  region: string;
  createdTime?: number;
  disabled?: boolean;
  capacity: { min: number; max: number; desired: number };
  instances: Instance[];
  moniker?: { app: string; cluster: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- utils/HealthHelper.java ----

function filterHealths(instance: Instance, names: string[] | null): Health[] {
  // HealthHelper.java:46-58
  const healths = instance.health ?? [];
  return names === null ? healths : healths.filter((h) => names.includes(h.type));
}

/** HealthHelper.java:102-125 */
export function someAreDownAndNoneAreUp(instance: Instance, names: string[] | null): boolean {
  const healths = filterHealths(instance, names);
  if ((names === null || names.length === 0) && healths.length === 0) return true;
  // isDownConsideringPlatformHealth, HealthHelper.java:81-93
  if (healths.length === 1 && healths[0].healthClass === "platform" && healths[0].state === "Unknown") return true;
  const someAreDown =
    healths.length === 0 || healths.some((h) => ["Down", "OutOfService", "Starting"].includes(h.state));
  const noneAreUp = !healths.some((h) => ["Up", "Draining"].includes(h.state));
  return someAreDown && noneAreUp;
}

/** HealthHelper.java:127-138 (areSomeUpConsideringPlatformHealth with names null: someAreUp) */
export function someAreUpAndNoneAreDownOrStarting(instance: Instance, names: string[] | null): boolean {
  const healths = filterHealths(instance, names);
  const someAreUp = healths.some((h) => h.state === "Up");
  const noneAreDown = !healths.some((h) => ["Down", "OutOfService", "Starting", "Draining"].includes(h.state));
  return someAreUp && noneAreDown;
}

// ---- the Clouddriver calls ----

export interface Stage {
  id: string;
  startTime: number;
  context: Record<string, Json>;
}

export function newStage(context: Record<string, Json>): Stage {
  return {
    id: `stage-${Math.random().toString(36).slice(2)}`,
    startTime: Date.now(),
    context: { cloudProvider: "azure", ...context },
  };
}

/**
 * KatoService.requestId (KatoService.java:110-130): sha256 of "<stageId>-<stageStartTime>-<Arrays.toString(payload
 * bytes)>", as hex (Guava's HashCode.toString).
 */
export function requestId(stage: Stage, operations: unknown): string {
  const bytes = [...Buffer.from(JSON.stringify(operations))].map((b) => (b > 127 ? b - 256 : b));
  return createHash("sha256")
    .update(`${stage.id}-${stage.startTime}-[${bytes.join(", ")}]`)
    .digest("hex");
}

export class Orca {
  readonly api: Api;
  readonly pollMs: number;
  /** Every path Orca called, in order. */
  readonly requests: string[] = [];

  constructor(api: Api, options: { pollMs?: number } = {}) {
    this.api = async (method, path, body) => {
      this.requests.push(`${method} ${path}`);
      return api(method, path, body);
    };
    this.pollMs = options.pollMs ?? 25;
  }

  /** A retrofit call that fails on a non-2xx, as SpinnakerHttpException. */
  async #call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await this.api<T>(method, path, body);
    if (res.status >= 400)
      throw Object.assign(new OrcaStageError(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`), {
        responseCode: res.status,
      });
    return res;
  }

  /** CloudDriverService.maybe (CloudDriverService.java:108-118): 404 is empty, anything else throws. */
  async #maybe<T>(path: string): Promise<T | undefined> {
    const res = await this.api<T>("GET", path);
    if (res.status === 404) return undefined;
    if (res.status >= 400) throw new OrcaStageError(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Runs a RetryableTask until it says done, at the task's backoff (compressed to pollMs). */
  async #until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (let polls = 1; ; polls++) {
      if (await check()) return polls;
      if (Date.now() > deadline) throw new OrcaStageError(`${what} did not succeed in ${timeoutMs} ms`);
      await sleep(this.pollMs);
    }
  }

  // ---- stage target resolution ----

  /** TargetServerGroupResolver.groovy:67-85 → OortService.java:108-116 (getTargetServerGroup). */
  async resolveTarget(p: {
    app: string;
    account: string;
    cluster: string;
    region: string;
    target: string;
  }): Promise<ServerGroup> {
    const res = await this.#call<ServerGroup>(
      "GET",
      `/applications/${p.app}/clusters/${p.account}/${p.cluster}/azure/${p.region}/serverGroups/target/${p.target}`,
    );
    return res.body;
  }

  /** TargetServerGroupResolver.groovy:87-104 → OortService.java:55-62, then the region filter at :99. */
  async resolveByName(p: {
    app: string;
    account: string;
    cluster: string;
    serverGroupName: string;
    region: string;
  }): Promise<ServerGroup> {
    const list = (
      await this.#call<ServerGroup[]>(
        "GET",
        `/applications/${p.app}/clusters/${p.account}/${p.cluster}/azure/serverGroups/${p.serverGroupName}`,
      )
    ).body;
    const tsg = list.find((sg) => sg.region === p.region);
    if (!tsg)
      throw new OrcaStageError(`Unable to locate ${p.serverGroupName} in ${p.account}/${p.region}/${p.cluster}`);
    return tsg;
  }

  // ---- writes and task polling ----

  /** KatoService.requestOperations (KatoService.java:52-59) → KatoRestService.java:30-34: POST /{cloudProvider}/ops. */
  async requestOperations(stage: Stage, operations: Record<string, Record<string, unknown>>[]): Promise<string> {
    const id = requestId(stage, operations);
    const res = await this.#call<{ id: string; ignoredFields?: string[] }>(
      "POST",
      `/azure/ops?clientRequestId=${id}`,
      operations,
    );
    // Orca's own fields are known to the service (src/api/ignored-fields.ts): its exact bodies leave nothing unread
    // but what it really does not read, and a field named here would be noise in every pipeline's task history.
    if (res.body.ignoredFields?.length)
      throw new OrcaStageError(`fields Orca sent were reported as ignored: ${res.body.ignoredFields.join(", ")}`);
    stage.context["kato.last.task.id"] = { id: res.body.id };
    return res.body.id;
  }

  /** MonitorKatoTask.groovy:123 (lookupTask → GET /task/{id}), :255-257 (failed → TERMINAL, completed → SUCCEEDED). */
  async monitorKato(stage: Stage, taskId: string): Promise<Json> {
    let task: Json;
    await this.#until(`task ${taskId}`, async () => {
      task = (await this.#call("GET", `/task/${taskId}`)).body;
      if (task.status.failed) throw new OrcaStageError(`task ${taskId} failed: ${JSON.stringify(task.resultObjects)}`);
      return task.status.completed === true;
    });
    stage.context["kato.tasks"] = [task];
    return task;
  }

  /**
   * ServerGroupCacheForceRefreshTask.groovy:119-163: POST /cache/azure/ServerGroup per deployed server group; a 200
   * means applied, so the task succeeds without polling GET /cache (:174-181).
   */
  async forceCacheRefresh(stage: Stage): Promise<void> {
    const account = stage.context.credentials;
    for (const [region, names] of Object.entries(stage.context["deploy.server.groups"] as Record<string, string[]>)) {
      for (const name of names) {
        const res = await this.#call("POST", "/cache/azure/ServerGroup", {
          asgName: name,
          serverGroupName: name,
          region,
          account,
        });
        if (res.status !== 200) {
          const pending = (await this.#call<unknown[]>("GET", "/cache/azure/ServerGroup")).body;
          throw new OrcaStageError(
            `force cache refresh not applied at once (${res.status}); pending: ${JSON.stringify(pending)}`,
          );
        }
      }
    }
  }

  // ---- AbstractInstancesCheckTask and its subclasses ----

  /** AbstractInstancesCheckTask.java:284-318: one server group → getServerGroup, several → getCluster. */
  async #fetchServerGroups(stage: Stage): Promise<ServerGroup[]> {
    const byRegion = stage.context["deploy.server.groups"] as Record<string, string[]>;
    const all = Object.values(byRegion).flat();
    if (all.length > 1) {
      const moniker = stage.context.moniker ?? { app: all[0].split("-")[0], cluster: all[0].replace(/-v\d{3,6}$/, "") };
      const cluster = (
        await this.#call<{ serverGroups: ServerGroup[] }>(
          "GET",
          `/applications/${moniker.app}/clusters/${stage.context.credentials}/${moniker.cluster}/azure`,
        )
      ).body;
      return cluster.serverGroups ?? [];
    }
    const [region, [name]] = Object.entries(byRegion)[0];
    return [
      (await this.#call<ServerGroup>("GET", `/serverGroups/${stage.context.credentials}/${region}/${name}`)).body,
    ];
  }

  /** AbstractInstancesCheckTask.java:115-239, with hasSucceeded supplied by the subclass. */
  async #instancesCheck(
    stage: Stage,
    what: string,
    hasSucceeded: (sg: ServerGroup, instances: Instance[]) => boolean,
  ): Promise<number> {
    return this.#until(what, async () => {
      const byRegion = stage.context["deploy.server.groups"] as Record<string, string[]>;
      const seen = new Map(
        Object.values(byRegion)
          .flat()
          .map((n) => [n, false]),
      );
      for (const sg of await this.#fetchServerGroups(stage)) {
        // :146-163: only the stage's server groups count
        if (!(byRegion[sg.region] ?? []).includes(sg.name)) continue;
        seen.set(sg.name, true);
        if (!hasSucceeded(sg, sg.instances ?? [])) return false;
      }
      // :208-209 verifyServerGroupsExist (:261-282): force-refresh, then CloudDriverService.getTargetServerGroup
      // (CloudDriverService.java:57-61, GET /serverGroups/{account}/{region}/{name}, 404 → missing)
      await this.forceCacheRefresh(stage);
      for (const [region, names] of Object.entries(byRegion)) {
        for (const name of names) {
          if ((await this.#maybe(`/serverGroups/${stage.context.credentials}/${region}/${name}`)) === undefined) {
            throw new OrcaStageError(`Server group '${region}:${name}' does not exist`);
          }
        }
      }
      return ![...seen.values()].includes(false);
    });
  }

  /** WaitForCapacityMatchTask.java:55-145 (matchInstancesSize off, no targetHealthyDeployPercentage). */
  waitForCapacityMatch(stage: Stage): Promise<number> {
    return this.#instancesCheck(stage, "WaitForCapacityMatch", (sg, instances) => {
      const capacity = sg.capacity;
      if (!capacity || capacity.desired === undefined) return false; // :72-78
      // :82-95 useConfiguredCapacity: the stage's capacity when it is fixed (min = max = desired)
      const configured = stage.context.capacity;
      const useConfigured =
        configured &&
        configured.desired !== undefined &&
        ((configured.min === configured.max && configured.min === configured.desired) ||
          (capacity.min === capacity.max && capacity.min === capacity.desired));
      const desired = useConfigured ? configured.desired : capacity.desired;
      if (desired !== instances.length) return false; // :123-127
      if (sg.disabled === true) return true; // :130-136
      return waitForUpInstancesMatch(stage, sg, instances); // :140-141
    });
  }

  /** WaitForUpInstancesTask.groovy:236-239 → allInstancesMatch (:77-139). */
  waitForUpInstances(stage: Stage): Promise<number> {
    return this.#instancesCheck(stage, "WaitForUpInstances", (sg, instances) =>
      waitForUpInstancesMatch(stage, sg, instances),
    );
  }

  /**
   * WaitForRequiredInstancesDownTask.groovy:40-111: every instance down, or with desiredPercentage the instances the
   * last kato task named in `instanceIdsToDisable` (else a count from the capacity).
   */
  waitForRequiredInstancesDown(stage: Stage): Promise<number> {
    return this.#instancesCheck(stage, "WaitForRequiredInstancesDown", (sg, instances) =>
      requiredInstancesDown(stage, sg, instances),
    );
  }

  /**
   * DisableServerGroupStage (DisableServerGroupStage.groovy:49-65): determineHealthProviders (Azure's server group
   * creator names no health provider, so interestingHealthProviderNames stays unset: null), DisableServerGroupTask
   * (AbstractServerGroupTask.groovy:71-103: the stage context is the operation; DisableServerGroupTask.groovy:38-51: a
   * desiredPercentage below 100 skips the traffic guard, which is not modelled here), MonitorKatoTask,
   * WaitForRequiredInstancesDownTask, WaitForDisabledServerGroupTask (skipped for a partial disable,
   * WaitForDisabledServerGroupTask.java:47-49, :78-80). Returns the kato task.
   */
  async disableServerGroupStage(stage: Stage): Promise<Json> {
    const c = stage.context;
    const operation = { ...c, serverGroupName: (c.serverGroupName ?? c.asgName) as string };
    const taskId = await this.requestOperations(stage, [{ disableServerGroup: operation }]);
    // AbstractServerGroupTask.groovy:87-100: the stage outputs the checks below read.
    c.asgName = operation.serverGroupName;
    c["deploy.server.groups"] = { [c.region]: [operation.serverGroupName] };
    c["targetop.asg.disableServerGroup.name"] = operation.serverGroupName;
    c["targetop.asg.disableServerGroup.regions"] = [c.region];
    const task = await this.monitorKato(stage, taskId);
    await this.waitForRequiredInstancesDown(stage);
    const partial = typeof c.desiredPercentage === "number" && c.desiredPercentage < 100;
    if (!partial) await this.waitForDisabledServerGroup(stage);
    return task;
  }

  /**
   * WaitForDisabledServerGroupTask.java:43-73: GET /serverGroups/{account}/{region}/{name} (CloudDriverService.java:63-68)
   * until `disabled`; a full disable only (:78-80).
   */
  waitForDisabledServerGroup(stage: Stage): Promise<number> {
    const [region, [name]] = Object.entries(stage.context["deploy.server.groups"] as Record<string, string[]>)[0];
    return this.#until("WaitForDisabledServerGroup", async () => {
      const res = await this.api<ServerGroup>("GET", `/serverGroups/${stage.context.credentials}/${region}/${name}`);
      return res.status === 200 && res.body.disabled === true; // an HTTP error is RUNNING (:61-66)
    });
  }

  /**
   * WaitForDestroyedServerGroupTask.groovy:48-89: the cluster read; 404, no server groups, or this one absent →
   * done; still there → RUNNING with its instances.
   */
  waitForDestroyedServerGroup(stage: Stage): Promise<number> {
    const { app, cluster } = stage.context.moniker;
    return this.#until("WaitForDestroyedServerGroup", async () => {
      const res = await this.api<{ serverGroups?: ServerGroup[] }>(
        "GET",
        `/applications/${app}/clusters/${stage.context.credentials}/${cluster}/azure`,
      );
      if (res.status === 404) return true;
      if (res.status !== 200) return false;
      return !(res.body.serverGroups ?? []).some(
        (sg) => sg.name === stage.context.serverGroupName && sg.region === stage.context.region,
      );
    });
  }

  // ---- cluster-wide stages ----

  /**
   * AbstractClusterWideClouddriverTask.groovy:80-147: read the cluster (maybeCluster, CloudDriverService.java:103-106),
   * keep the stage's region (:103-117), let the subclass choose, build one payload per server group
   * (TargetServerGroup.java:136-161, plus the subclass's fields), submit them as one list (:140).
   */
  async clusterWideOperation(
    stage: Stage,
    operation: "disableServerGroup" | "resizeServerGroup" | "destroyServerGroup",
    filter: (all: ServerGroup[]) => ServerGroup[],
    extra: (sg: ServerGroup) => Record<string, unknown> = () => ({}),
  ): Promise<string | undefined> {
    const c = stage.context;
    const cluster = await this.#maybe<{ serverGroups: ServerGroup[] }>(
      `/applications/${c.moniker.app}/clusters/${c.credentials}/${c.cluster}/azure`,
    );
    if (!cluster || cluster.serverGroups.length === 0) {
      if (c.continueIfClusterNotFound) return undefined;
      throw new OrcaStageError(`No Cluster details found for ${c.cluster}`);
    }
    const inRegion = cluster.serverGroups.filter((sg) => sg.region === c.region);
    const chosen = filter(inRegion);
    if (chosen.length === 0) return undefined; // :123-126
    const ops = chosen.map((sg) => ({
      [operation]: {
        credentials: c.credentials,
        accountName: c.credentials,
        serverGroupName: sg.name,
        asgName: sg.name,
        cloudProvider: "azure",
        region: sg.region,
        ...extra(sg),
      },
    }));
    const taskId = await this.requestOperations(stage, ops);
    c["deploy.server.groups"] = { [c.region]: chosen.map((sg) => sg.name) }; // :134-146
    return taskId;
  }

  /**
   * AbstractWaitForClusterWideClouddriverTask.groovy:99-139: re-read the cluster until no deployed server group is
   * still "in progress" by the subclass's rule.
   */
  waitForClusterWide(
    stage: Stage,
    what: string,
    inProgress: (sg: ServerGroup | undefined) => boolean,
    missingClusterDone = false,
  ): Promise<number> {
    const c = stage.context;
    return this.#until(what, async () => {
      const cluster = await this.#maybe<{ serverGroups: ServerGroup[] }>(
        `/applications/${c.moniker.app}/clusters/${c.credentials}/${c.cluster}/azure`,
      );
      if (!cluster || cluster.serverGroups.length === 0) {
        if (missingClusterDone) return true; // WaitForClusterShrinkTask.java:31-41
        throw new OrcaStageError(`no cluster details found for ${c.cluster}`);
      }
      const remaining = (c["deploy.server.groups"][c.region] as string[]).filter((name) =>
        inProgress(cluster.serverGroups.find((sg) => sg.region === c.region && sg.name === name)),
      );
      return remaining.length === 0;
    });
  }

  // ---- the deploy stage (CreateServerGroupStage.groovy) and its strategies ----

  /** FeaturesService.isStageAvailable (FeaturesService.java:31-34) → FeaturesRestService.java:24 GET /features/stages. */
  // ---- the instance stages (orca-clouddriver pipeline/instance/, tasks/instance/, utils/TrafficGuard.java) ----

  /**
   * CloudDriverService.getSearchResults (CloudDriverService.java:52-55) → OortService.getSearchResults
   * (OortService.java:130-134): `GET /search?q=&type=&cloudProvider=`; any non-2xx throws.
   */
  async searchResults(instanceId: string, cloudProvider = "azure"): Promise<SearchResultSet[]> {
    const q = new URLSearchParams({ q: instanceId, type: "instances", cloudProvider });
    return (await this.#call<SearchResultSet[]>("GET", `/search?${q.toString()}`)).body;
  }

  /** TrafficGuard.resolveServerGroupNameForInstance (TrafficGuard.java:154-172): the first match in account and region. */
  async resolveServerGroupNameForInstance(instanceId: string, account: string, region: string) {
    const results = (await this.searchResults(instanceId))[0].results ?? [];
    const instance = results.find((r) => account === r.account && region === r.region);
    // "instance not found, assume it's already terminated"
    return instance?.serverGroup as string | undefined;
  }

  /**
   * TrafficGuard.verifyInstanceTermination (TrafficGuard.java:68-95): the instances by the server group they are in,
   * looked up by search when the stage names none. Front50's traffic guards are not consulted (no Front50 here).
   */
  async instancesPerServerGroup(stage: Stage, instanceIds: string[]): Promise<Map<string, string[]>> {
    const byGroup = new Map<string, string[]>();
    for (const id of instanceIds) {
      const name =
        (stage.context.serverGroupName as string | undefined) ??
        (await this.resolveServerGroupNameForInstance(
          id,
          stage.context.credentials as string,
          stage.context.region as string,
        ));
      if (name !== undefined) byGroup.set(name, [...(byGroup.get(name) ?? []), id]);
    }
    return byGroup;
  }

  /**
   * TerminatingInstanceSupport.getRemainingInstancesFromSearch (TerminatingInstanceSupport.groovy:113-124): an
   * instance remains unless the search answers totalMatches 0; a failed search counts as remaining.
   */
  async remainingInstancesFromSearch(instanceIds: string[]): Promise<string[]> {
    const remaining: string[] = [];
    for (const id of instanceIds) {
      let results: SearchResultSet[] | undefined;
      try {
        results = await this.searchResults(id);
      } catch {
        results = undefined;
      }
      if (results?.[0]?.totalMatches !== 0) remaining.push(id);
    }
    return remaining;
  }

  /**
   * TerminatingInstanceSupport.getRemainingInstancesFromServerGroup (TerminatingInstanceSupport.groovy:81-108): the
   * server group read (`GET /serverGroups/{account}/{region}/{name}`, CloudDriverService.java:57-61, OortService.java
   * :102-106; absent → IllegalStateException); an instance remains while the group lists one of its name
   * (`it.name == id`) whose launchTime is not later than the one first recorded; the first pass records it.
   */
  async remainingInstancesFromServerGroup(stage: Stage, terminating: TerminatingInstance[]) {
    const c = stage.context;
    const name = (c.serverGroupName ?? c.asgName) as string;
    const sg = await this.#maybe<ServerGroup>(`/serverGroups/${c.credentials}/${c.region}/${name}`);
    if (!sg) throw new OrcaStageError(`ServerGroup not found for azure/${c.credentials}/${c.region}/${name}`);
    const remaining: TerminatingInstance[] = [];
    for (const t of terminating) {
      const listed = sg.instances.find((i) => i.name === t.id);
      if (!listed) continue; // "instance not found in clouddriver. Must be terminated."
      if (t.launchTime === undefined) remaining.push({ id: t.id, launchTime: listed.launchTime });
      else if ((listed.launchTime ?? 0) <= t.launchTime) remaining.push(t); // "instance not yet shutdown"
    }
    return remaining;
  }

  /** TerminatingInstanceSupport.remainingInstances (l.51-79): by the server group when the stage names one, else by search. */
  async remainingInstances(stage: Stage, terminating: TerminatingInstance[]): Promise<TerminatingInstance[]> {
    if (terminating.length === 0) return [];
    if (stage.context.serverGroupName ?? stage.context.asgName)
      return this.remainingInstancesFromServerGroup(stage, terminating);
    const left = await this.remainingInstancesFromSearch(terminating.map((t) => t.id));
    return terminating.filter((t) => left.includes(t.id));
  }

  /**
   * TerminateInstancesStage (TerminateInstancesStage.groovy:34-36): TerminateInstancesTask (TerminateInstancesTask.groovy
   * :51-83: the remaining instances, which records their launch times when the stage names its server group, the
   * traffic guard's lookup, `[[terminateInstances: context + instanceIds]]`), MonitorKatoTask, then
   * WaitForTerminatedInstancesTask (WaitForTerminatedInstancesTask.groovy:42-47) until none remains: gone from the
   * server group or relaunched (a later launchTime), or, for a stage naming no server group (Deck's one-instance
   * terminate), until the search finds none.
   */
  async terminateInstancesStage(
    stage: Stage,
  ): Promise<{ task?: Json; serverGroups: Map<string, string[]>; waitPolls?: number }> {
    const asked = (stage.context.instanceIds as string[]).map((id) => ({ id }));
    let remaining = await this.remainingInstances(stage, asked);
    const instanceIds = remaining.map((t) => t.id);
    if (instanceIds.length === 0) return { serverGroups: new Map() };
    const serverGroups = await this.instancesPerServerGroup(stage, instanceIds);
    const taskId = await this.requestOperations(stage, [{ terminateInstances: { ...stage.context, instanceIds } }]);
    const task = await this.monitorKato(stage, taskId);
    const waitPolls = await this.#until("waitForTerminatedInstances", async () => {
      remaining = await this.remainingInstances(stage, remaining);
      return remaining.length === 0;
    });
    return { task, serverGroups, waitPolls };
  }

  /**
   * WaitForDownInstanceHealthTask.process (WaitForDownInstanceHealthTask.java:45-65): done when every instance,
   * read by CloudDriverService.getInstanceTyped (`GET /instances/{account}/{region}/{id}`, OortService.java:139-143;
   * any non-2xx throws), is HealthHelper.someAreDownAndNoneAreUp.
   */
  async instancesDown(stage: Stage): Promise<boolean> {
    const names = (stage.context.interestingHealthProviderNames as string[] | undefined) ?? null;
    if (names !== null && names.length === 0) return true;
    const account = (stage.context.account ?? stage.context.credentials) as string;
    for (const id of stage.context.instanceIds as string[]) {
      const instance = (await this.#call<Instance>("GET", `/instances/${account}/${stage.context.region}/${id}`)).body;
      if (!someAreDownAndNoneAreUp(instance, names)) return false;
    }
    return true;
  }

  async isStageAvailable(stageType: string): Promise<boolean> {
    const stages = (await this.#call<{ name: string; enabled: boolean }[]>("GET", "/features/stages")).body;
    return stages.some((s) => s.enabled && s.name === stageType);
  }

  /**
   * DetermineSourceServerGroupTask.groovy:51-82 with SourceResolver.getSource (SourceResolver.groovy:90-123): the
   * cluster read (404 → none), the region's groups by createdTime, enabled ones preferred, the latest; the stage
   * output is `source` (its name, account, region, useSourceCapacity), or {} when the cluster is empty.
   */
  async determineSourceServerGroup(stage: Stage): Promise<void> {
    const c = stage.context;
    const cluster = [c.application, c.stack, c.freeFormDetails]
      .filter((p, i) => i === 0 || (p !== undefined && p !== null && p !== ""))
      .join("-");
    const read = await this.#maybe<{ serverGroups: ServerGroup[] }>(
      `/applications/${c.application}/clusters/${c.account}/${cluster}/azure`,
    );
    let groups = (read?.serverGroups ?? [])
      .filter((sg) => sg.region === c.region)
      .sort((a, b) => (a.createdTime ?? 0) - (b.createdTime ?? 0));
    const enabled = groups.filter((sg) => sg.disabled === false);
    if (enabled.length > 0) groups = enabled;
    const latest = groups.at(-1);
    // :117-121 useSourceCapacity: the source's, else the stage's
    c.source = latest
      ? {
          asgName: latest.name,
          serverGroupName: latest.name,
          account: c.account,
          region: latest.region,
          useSourceCapacity: c.useSourceCapacity ?? null,
        }
      : {};
  }

  /**
   * AzureServerGroupCreator.getOperations (AzureServerGroupCreator.groovy:33-52): the stage context as the
   * description, credentials from account, and the image from a bake stage when there is one (:42-49).
   */
  static azureCreateOperations(
    stage: Stage,
    bake?: { imageId: string; osType: string; imageName: string },
  ): Record<string, Record<string, unknown>>[] {
    const operation: Record<string, Json> = structuredClone(stage.context);
    if (operation.account && !operation.credentials) operation.credentials = operation.account;
    if (bake) {
      operation.image.isCustom = true;
      operation.image.uri = bake.imageId;
      operation.image.ostype = bake.osType;
      operation.image.imageName = bake.imageName;
    }
    return [{ createServerGroup: operation }];
  }

  /** MonitorKatoTask.groovy:287-301: deploy.server.groups from the result objects' serverGroupNames ("region:name"). */
  static deployedServerGroups(task: { resultObjects?: { serverGroupNames?: string[] }[] }): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const r of task.resultObjects ?? [])
      for (const n of r.serverGroupNames ?? []) (out[n.split(":")[0]] ??= []).push(n.split(":")[1]);
    return out;
  }

  /**
   * The deploy stage's tasks (CreateServerGroupStage.groovy:69-92): createServerGroup, monitorDeploy,
   * forceCacheRefresh, tagServerGroup when upsertEntityTags is available (:70, :81-83), waitForUpInstances,
   * forceCacheRefresh. `after` runs after each task (the tests' traffic check).
   */
  async deployStage(
    stage: Stage,
    options: {
      bake?: { imageId: string; osType: string; imageName: string };
      after?: (step: string) => Promise<void>;
    } = {},
  ): Promise<Json> {
    const after = options.after ?? (async () => {});
    const tagging = await this.isStageAvailable("upsertEntityTags");
    if (tagging) throw new OrcaStageError("this client does not run AddServerGroupEntityTagsTask");
    const taskId = await this.requestOperations(stage, Orca.azureCreateOperations(stage, options.bake));
    await after("createServerGroup");
    const task = await this.monitorKato(stage, taskId);
    stage.context["deploy.server.groups"] = Orca.deployedServerGroups(task);
    stage.context["deploy.account.name"] = stage.context.credentials ?? stage.context.account;
    await after("monitorDeploy");
    await this.forceCacheRefresh(stage);
    await this.waitForUpInstances(stage);
    await after("waitForUpInstances");
    await this.forceCacheRefresh(stage);
    return task;
  }

  /**
   * AbstractClusterWideClouddriverTask.groovy:213-263 filterParentDeploys: the parent deploy's groups, and any newer
   * than them, are never operated on.
   */
  static withoutParentDeploys(groups: ServerGroup[], parentDeployed: string[]): ServerGroup[] {
    const parents = groups.filter((sg) => parentDeployed.includes(sg.name));
    if (parents.length === 0) return groups;
    const minCreated = Math.min(...parents.map((sg) => sg.createdTime ?? 0));
    return groups.filter((sg) => !parentDeployed.includes(sg.name) && !((sg.createdTime ?? 0) > minCreated));
  }

  /**
   * DisableClusterStage as RedBlackStrategy.groovy:111-122 plans it (remainingEnabledServerGroups 1,
   * preferLargerOverNewer false): DisableClusterTask.groovy:43-63, then WaitForClusterDisableTask.
   */
  async disableCluster(
    base: Record<string, unknown>,
    parentDeployed: string[],
    after: (step: string) => Promise<void> = async () => {},
  ): Promise<string[]> {
    const stage = newStage({ ...base, remainingEnabledServerGroups: 1, preferLargerOverNewer: false });
    let chosen: string[] = [];
    const taskId = await this.clusterWideOperation(
      stage,
      "disableServerGroup",
      (all) => {
        const filtered = Orca.withoutParentDeploys(all, parentDeployed);
        const dropCount = Math.max(0, 1 - (all.length - filtered.length));
        const picked = filtered.filter(isActive).sort(newestFirst).slice(dropCount);
        chosen = picked.map((sg) => sg.name);
        return picked;
      },
      () => ({ desiredPercentage: null }),
    );
    if (!taskId) return [];
    await after("disableCluster");
    await this.monitorKato(stage, taskId);
    await this.waitForClusterWide(
      stage,
      "WaitForClusterDisable",
      (sg) => sg !== undefined && !sg.instances.every((i) => i.healthState === "OutOfService"),
    );
    await after("waitForClusterDisable");
    return chosen;
  }

  /**
   * ShrinkClusterStage as HighlanderStrategy.groovy:48-57 plans it (shrinkToSize 1, allowDeleteActive true):
   * ShrinkClusterTask.groovy:60-83, then WaitForClusterShrinkTask.
   */
  async shrinkCluster(
    base: Record<string, unknown>,
    parentDeployed: string[],
    after: (step: string) => Promise<void> = async () => {},
  ): Promise<string[]> {
    const stage = newStage({ ...base, shrinkToSize: 1, allowDeleteActive: true, retainLargerOverNewer: false });
    let chosen: string[] = [];
    const taskId = await this.clusterWideOperation(stage, "destroyServerGroup", (all) => {
      const filtered = Orca.withoutParentDeploys(all, parentDeployed);
      const dropCount = 1 - (all.length - filtered.length);
      // CompositeComparator(IsActive, CreatedTime): active first, newest first; keep the first dropCount.
      const prioritized = [...filtered].sort((a, b) => Number(isActive(b)) - Number(isActive(a)) || newestFirst(a, b));
      const picked = prioritized.slice(Math.max(0, dropCount));
      chosen = picked.map((sg) => sg.name);
      return picked;
    });
    if (!taskId) return [];
    await after("shrinkCluster");
    await this.monitorKato(stage, taskId);
    await this.waitForClusterWide(stage, "WaitForClusterShrink", (sg) => sg !== undefined, true);
    await after("waitForClusterShrink");
    return chosen;
  }

  // ---- the rolling red/black strategy (RollingRedBlackStrategy.groovy) ----

  /**
   * ResizeServerGroupStage (ResizeServerGroupStage.groovy:44-53): ResizeServerGroupTask (ResizeServerGroupTask.groovy
   * :66-86: the stage context, with the strategy's capacity and originalCapacity, as the operation), MonitorKatoTask,
   * forceCacheRefresh, WaitForCapacityMatchTask.
   */
  async resizeServerGroupStage(stage: Stage, capacity: ServerGroup["capacity"], original: ServerGroup["capacity"]) {
    const c = stage.context;
    const operation = { ...c, capacity, originalCapacity: original };
    const taskId = await this.requestOperations(stage, [{ resizeServerGroup: operation }]);
    c["deploy.server.groups"] = { [c.region]: [c.serverGroupName] };
    await this.monitorKato(stage, taskId);
    await this.forceCacheRefresh(stage);
    await this.waitForCapacityMatch(stage);
  }

  /** ResizeStrategySupport.getCapacity (ResizeStrategySupport.groovy:75-89): the source's capacity as read now. */
  async capacityOf(account: string, region: string, name: string): Promise<ServerGroup["capacity"]> {
    return (await this.#call<ServerGroup>("GET", `/serverGroups/${account}/${region}/${name}`)).body.capacity;
  }

  /**
   * RollingRedBlackStrategy.composeAfterStages (RollingRedBlackStrategy.groovy:97-277) for a deploy with a source and
   * scaleDown: pin the source's min (:146-162), then for each percentage, 100 added last when missing (:114-117), grow
   * the new group to that share of the source (:166-200, ScaleToServerGroupResizeStrategy.groovy:45-56 with
   * ResizeStrategySupport.groovy:120-168: desired ceil(source desired × p / 100), pinned below 100, min unpinned to
   * savedCapacity's at 100) and disable that share of the source (:207-222, "Disable p% of Traffic"), then
   * scaleDownCluster (:227-253). `after` runs after each stage.
   */
  async rollingRedBlack(p: {
    base: Record<string, Json>;
    source: string;
    deployed: string;
    savedCapacity: ServerGroup["capacity"];
    targetPercentages: number[];
    after?: (step: string) => Promise<void>;
  }): Promise<{ disables: Json[] }> {
    const after = p.after ?? (async () => {});
    const { credentials, region } = p.base as { credentials: string; region: string };
    const percentages = [...p.targetPercentages];
    if (percentages.length === 0 || percentages.at(-1) !== 100) percentages.push(100);
    const sourceRef = { region, serverGroupName: p.source, credentials, cloudProvider: "azure" };
    const before = await this.capacityOf(credentials, region, p.source);
    const pin = newStage({ ...p.base, serverGroupName: p.source, action: "scale_to_server_group", source: sourceRef });
    Object.assign(pin.context, { useNameAsLabel: true, pinMinimumCapacity: true });
    await this.resizeServerGroupStage(pin, { ...before, min: before.desired }, before);
    await after(`pin ${p.source}`);
    const disables: Json[] = [];
    for (const pct of percentages) {
      const source = await this.capacityOf(credentials, region, p.source);
      const desired = Math.ceil((source.desired * pct) / 100);
      let capacity = { max: Math.max(source.max, desired), desired, min: Math.min(source.min, desired) };
      if (pct === 100 && p.savedCapacity.min <= capacity.min) capacity = { ...capacity, min: p.savedCapacity.min };
      if (pct < 100) capacity = { min: desired, max: desired, desired };
      const grow = newStage({
        ...p.base,
        // TargetServerGroup current_asg_dynamic, resolved by AbstractServerGroupTask.convert (:105-123)
        serverGroupName: p.deployed,
        asgName: p.deployed,
        deployServerGroupsRegion: region,
        target: "current_asg_dynamic",
        targetLocation: { type: "REGION", value: region },
        scalePct: pct,
        pinCapacity: pct < 100,
        unpinMinimumCapacity: pct === 100,
        pinMinimumCapacity: pct < 100,
        useNameAsLabel: true,
        targetHealthyDeployPercentage: null,
        action: "scale_to_server_group",
        source: sourceRef,
      });
      await this.resizeServerGroupStage(grow, capacity, await this.capacityOf(credentials, region, p.deployed));
      await after(`grow ${p.deployed} to ${pct} %`);
      const disable = newStage({ ...p.base, desiredPercentage: pct, serverGroupName: p.source });
      disables.push(await this.disableServerGroupStage(disable));
      await after(`disable ${pct} % of ${p.source}`);
    }
    await this.scaleDownCluster(p.base, [p.deployed], after);
    return { disables };
  }

  /**
   * ScaleDownClusterStage as RollingRedBlackStrategy.groovy:240-252 plans it (remainingFullSizeServerGroups 1,
   * allowScaleDownActive false, preferLargerOverNewer false): ScaleDownClusterTask.groovy:42-93 (active groups kept,
   * then by created time), resizing each chosen group to {0, 0, 0}; then WaitForScaleDownClusterTask until they are
   * empty.
   */
  async scaleDownCluster(
    base: Record<string, unknown>,
    parentDeployed: string[],
    after: (step: string) => Promise<void> = async () => {},
  ): Promise<string[]> {
    const stage = newStage({
      ...base,
      allowScaleDownActive: false,
      remainingFullSizeServerGroups: 1,
      preferLargerOverNewer: false,
    });
    let chosen: string[] = [];
    const taskId = await this.clusterWideOperation(
      stage,
      "resizeServerGroup",
      (all) => {
        const filtered = Orca.withoutParentDeploys(all, parentDeployed).filter((sg) => !isActive(sg));
        const dropCount = Math.max(0, 1 - (all.length - filtered.length));
        const picked = [...filtered].sort(newestFirst).slice(dropCount);
        chosen = picked.map((sg) => sg.name);
        return picked;
      },
      () => ({ capacity: { min: 0, max: 0, desired: 0 } }),
    );
    if (!taskId) return [];
    await this.monitorKato(stage, taskId);
    await this.waitForClusterWide(
      stage,
      "WaitForScaleDownCluster",
      (sg) => sg !== undefined && (sg.instances.length > 0 || sg.capacity.desired > 0),
    );
    await after("scaleDownCluster");
    return chosen;
  }
}

/** WaitForUpInstancesTask.groovy:77-139 (interestingHealthProviderNames null: Azure names no platform provider). */
export function waitForUpInstancesMatch(stage: Stage, sg: ServerGroup, instances: Instance[]): boolean {
  const capacity = sg.capacity;
  if (!capacity || capacity.desired === undefined) return false; // :94-98
  const targetDesiredSize = capacity.desired; // calculateTargetDesiredSize, :145-197, no percentages
  if (targetDesiredSize > instances.length) return false; // :115-118
  const names = (stage.context.interestingHealthProviderNames as string[] | undefined) ?? null;
  if (names !== null && names.length === 0) return true; // :120-123
  const healthy = instances.filter((i) => someAreUpAndNoneAreDownOrStarting(i, names)).length; // :125-129
  return healthy >= targetDesiredSize;
}

/**
 * WaitForRequiredInstancesDownTask.groovy:41-111. Without desiredPercentage: at least instances.size() are down. With
 * it: the instances the last kato task named in `instanceIdsToDisable` (:125-146, less `discoverySkippedInstanceIds`)
 * are all down (:79-100); when it named none, at least getDesiredInstanceCount(capacity, desiredPercentage) are
 * (:102-104, WaitingForInstancesTaskHelper.java:43-56).
 */
export function requiredInstancesDown(stage: Stage, sg: ServerGroup, instances: Instance[]): boolean {
  const names = (stage.context.interestingHealthProviderNames as string[] | undefined) ?? null;
  if (names !== null && names.length === 0) return true;
  const down = (i: Instance) => someAreDownAndNoneAreUp(i, names);
  let targetDesiredSize = instances.length;
  const desiredPercentage = stage.context.desiredPercentage as number | null | undefined;
  if (desiredPercentage !== undefined && desiredPercentage !== null) {
    const results = katoResults(stage);
    const skipped = (results.find((r) => "discoverySkippedInstanceIds" in r)?.discoverySkippedInstanceIds ??
      []) as string[];
    const named = (results.find((r) => "instanceIdsToDisable" in r)?.instanceIdsToDisable ?? []) as string[];
    const toDisable = instances.filter((i) => named.includes(i.name) && !skipped.includes(i.name));
    if (toDisable.length > 0) return toDisable.every(down);
    targetDesiredSize = desiredInstanceCount(sg.capacity, desiredPercentage);
  }
  return instances.filter(down).length >= targetDesiredSize;
}

/** WaitForRequiredInstancesDownTask.groovy:148-165 getKatoResults: the result objects of the stage's last kato task. */
function katoResults(stage: Stage): Record<string, Json>[] {
  const lastId = (stage.context["kato.last.task.id"] as { id?: string } | undefined)?.id;
  const tasks = stage.context["kato.tasks"] as Json[] | undefined;
  if (lastId === undefined || !tasks) return [];
  return tasks.find((task) => String(task.id) === lastId)?.resultObjects ?? [];
}

/** WaitingForInstancesTaskHelper.getDesiredInstanceCount (WaitingForInstancesTaskHelper.java:43-56). */
export function desiredInstanceCount(capacity: ServerGroup["capacity"], desiredPercentage: number): number {
  const min = capacity.min ?? capacity.desired;
  const max = capacity.max ?? capacity.desired;
  return Math.ceil((desiredPercentage / 100 - 1) * max + min);
}

// ---- the comparators and filters of AbstractClusterWideClouddriverTask.groovy ----

/** :265-267 isActive: not disabled, or some instance Up. */
export function isActive(sg: ServerGroup): boolean {
  return sg.disabled === false || sg.instances.some((i) => i.healthState === "Up");
}

/** :283-288 CreatedTime: newest first. */
export const newestFirst = (a: ServerGroup, b: ServerGroup) => (b.createdTime ?? 0) - (a.createdTime ?? 0);

/**
 * What a cleanup stage of `application`'s `-prod` cluster carries (disable, scale down, destroy), as Deck builds it
 * for account demo in `region`.
 */
export function cleanupBase(region: string, application: string) {
  const cluster = `${application}-prod`;
  return { credentials: "demo", region, cluster, moniker: { app: application, cluster }, cloudProvider: "azure" };
}
