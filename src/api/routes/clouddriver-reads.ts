// The Clouddriver reads Orca makes around its Azure server-group stages (orca-clouddriver OortService,
// CloudDriverService, CloudDriverCacheService, CloudDriverCacheStatusService), answered from Azure through the read
// cache. Every answer says how fresh it is: `X-Azure-Read-At` (when Azure was asked for the oldest part of it) and
// `Age` (seconds since then).
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountConfig } from "../../azure/account-config.ts";
import { requireAccount } from "../access-control.ts";
import { mayUseAccount } from "../../auth/principal.ts";
import type { AccountRegistry } from "../../azure/accounts.ts";
import type { ScaleSetReads } from "../../azure/read-cache.ts";
import {
  ClouddriverSearchResults,
  instanceAt,
  instanceMatch,
  searchInstance,
  type ClouddriverInstanceMatch,
} from "../../clouddriver/instances.ts";
import { clusterSummaries, expand, listServerGroups, refFor } from "../../clouddriver/listing.ts";
import { parseName } from "../../naming/frigga.ts";
import {
  CLOUD_PROVIDER,
  ClouddriverApplication,
  ClouddriverCluster,
  ClouddriverInstance,
  ClouddriverServerGroup,
  ClouddriverServerGroupOrList,
  ForceCacheRefresh,
  ForceCacheRefreshResult,
  PendingCacheRefreshes,
  instanceView,
  serverGroupView,
  type ClouddriverServerGroup as ServerGroupView,
} from "../../clouddriver/server-group.ts";
import { chooseTarget, parseTarget } from "../../clouddriver/targets.ts";
import { scaleSetOfVmName } from "../../operations/instance-location.ts";
import { AccountName, RegionName, ScaleSetName } from "../../operations/description.ts";
import type { ClouddriverForwarder } from "../clouddriver-forwarding.ts";
import { validationError } from "../errors.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses, FORWARDING_ERRORS } from "../error-responses.ts";
import { readFailureAnswer } from "../failure-answers.ts";

const AppName = Type.String({
  pattern: "^[A-Za-z0-9._]{1,64}$",
  description: "a Spinnaker application name (Frigga: letters, digits, '.', '_')",
});
const ClusterName = Type.String({
  pattern: "^[A-Za-z0-9._~^-]{1,64}$",
  description: "a Spinnaker cluster name: app, app-stack or app-stack-detail",
});
const TargetName = Type.String({
  pattern: "^[A-Za-z_]{1,40}$",
  description:
    "current_asg_dynamic, ancestor_asg_dynamic, oldest_asg_dynamic, largest_asg_dynamic (or newest, previous, ancestor, fail, …)",
});
const BooleanText = Type.Union([Type.Literal("true"), Type.Literal("false")]);

const errors = errorResponses("ValidationError", "NotFound", "AzureError", "AzureUnavailable", ...FORWARDING_ERRORS);
const FRESHNESS = " Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).";
const FORWARDED =
  "With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.";

function notFound(what: string) {
  return apiError("NotFound", { what });
}

function stateFreshness(reply: FastifyReply, readAt: number): void {
  reply.header("x-azure-read-at", new Date(readAt).toISOString());
  reply.header("age", String(Math.max(0, Math.floor((Date.now() - readAt) / 1000))));
}

export interface ClouddriverReadOptions {
  accounts: AccountRegistry;
  reads: ScaleSetReads;
  /** With a Clouddriver behind us: reads for accounts (or applications) we do not serve go to it. */
  forwarder?: ClouddriverForwarder;
}

/** Thrown when the request is Clouddriver's to answer; the routes forward it when there is one. */
class NotOurs extends Error {
  override name = "NotOurs";
}

/** What the routes share: the options, the account lookup that knows what is not ours, and the cluster read. */
interface ClouddriverReads extends ClouddriverReadOptions {
  /** The account, or NotOurs (with a Clouddriver) or 404 (without) when it is not served here. */
  account: (name: string) => AccountConfig;
  /** The cluster's server groups, with their VMs, and when Azure was asked for the oldest part of them. */
  clusterServerGroups: (
    accountName: string,
    application: string,
    cluster: string,
  ) => Promise<{ serverGroups: ServerGroupView[]; readAt: number }>;
}

function clouddriverReads(opts: ClouddriverReadOptions): ClouddriverReads {
  const { accounts, reads, forwarder } = opts;
  const account = (name: string): AccountConfig => {
    const a = accounts.get(name);
    if (!a)
      throw forwarder
        ? new NotOurs()
        : notFound(`account ${name} is not served here; known: ${accounts.names().join(", ")}`);
    return a;
  };
  const clusterServerGroups = async (accountName: string, application: string, cluster: string) => {
    const a = account(accountName);
    try {
      const listed = await listServerGroups(reads, a, { application, cluster });
      const expanded = await expand(reads, listed.value);
      return { serverGroups: expanded.value, readAt: Math.min(listed.readAt, expanded.readAt) };
    } catch (err) {
      throw readFailureAnswer(err, `cluster ${cluster} in ${accountName}`);
    }
  };
  return { ...opts, account, clusterServerGroups };
}

/** The account a read names, in its path or its body. */
function namedAccount(request: FastifyRequest): unknown {
  return (
    (request.params as { account?: unknown }).account ?? (request.body as { account?: unknown } | undefined)?.account
  );
}

const ClusterParams = Type.Object({ app: AppName, account: AccountName, cluster: ClusterName });

/** GET /applications/{app}: the application's Azure clusters, by account the caller may read. */
const applicationRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (
  app,
  { accounts, reads, forwarder, account },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
  app.get(
    "/applications/:app",
    {
      schema: {
        operationId: "clouddriverGetApplication",
        description:
          "With CLOUDDRIVER_URL set, an application with no Azure server groups here is forwarded to Clouddriver.",
        summary: "An application: its Azure clusters by account (Clouddriver's ApplicationsController)." + FRESHNESS,
        tags: ["clouddriver"],
        params: Type.Object({ app: AppName }),
        response: { 200: { ...Type.Ref(ClouddriverApplication), description: "the application" }, ...errors },
      },
    },
    async (request, reply) => {
      const { app: application } = request.params;
      const clusters: Record<
        string,
        { name: string; provider: "azure"; serverGroups: string[]; loadBalancers: string[] }[]
      > = {};
      let readAt = Date.now();
      for (const name of accounts.names().filter((n) => mayUseAccount(request.principal, n))) {
        try {
          const listed = await listServerGroups(reads, account(name), { application });
          readAt = Math.min(readAt, listed.readAt);
          const summaries = clusterSummaries(listed.value);
          if (summaries.length > 0)
            clusters[name] = summaries.map((c) => ({ ...c, provider: CLOUD_PROVIDER, loadBalancers: [] }));
        } catch (err) {
          throw readFailureAnswer(err, `application ${application} in ${name}`);
        }
      }
      if (Object.keys(clusters).length === 0) {
        if (forwarder) throw new NotOurs();
        throw notFound(`Application does not exist (name: ${application}): no Azure server groups named for it`);
      }
      stateFreshness(reply, readAt);
      return { name: application, attributes: { name: application, cloudProviders: CLOUD_PROVIDER }, clusters };
    },
  );
};

/** GET …/clusters/{account}/{cluster}/azure: a cluster, its server groups and their instances. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const clusterRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app, { clusterServerGroups }) => {
  app.get(
    "/applications/:app/clusters/:account/:cluster/azure",
    {
      schema: {
        operationId: "clouddriverGetCluster",
        description: FORWARDED,
        summary: "A cluster and its server groups with their instances (OortService.getCluster)." + FRESHNESS,
        tags: ["clouddriver"],
        params: ClusterParams,
        response: { 200: { ...Type.Ref(ClouddriverCluster), description: "the cluster" }, ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const { serverGroups, readAt } = await clusterServerGroups(p.account, p.app, p.cluster);
      if (serverGroups.length === 0)
        throw notFound(
          `No clusters found (application: ${p.app}, account: ${p.account}, name: ${p.cluster}, type: azure)`,
        );
      stateFreshness(reply, readAt);
      return {
        name: p.cluster,
        type: CLOUD_PROVIDER,
        accountName: p.account,
        moniker: { ...parseName(p.cluster), app: serverGroups[0].moniker.app, cluster: serverGroups[0].cluster },
        serverGroups,
        loadBalancers: [],
      };
    },
  );
};

/** GET …/clusters/{account}/{cluster}/azure/serverGroups/{serverGroup}: a server group of a cluster (one per region, or the one in ?region=). */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const clusterServerGroupRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app, { clusterServerGroups }) => {
  app.get(
    "/applications/:app/clusters/:account/:cluster/azure/serverGroups/:serverGroup",
    {
      schema: {
        operationId: "clouddriverGetServerGroupFromCluster",
        description: FORWARDED,
        summary:
          "A server group of a cluster: a list, or one server group when ?region= is given (OortService.getServerGroupsFromClusterTyped)." +
          FRESHNESS,
        tags: ["clouddriver"],
        params: Type.Object({ app: AppName, account: AccountName, cluster: ClusterName, serverGroup: ScaleSetName }),
        querystring: Type.Object({ region: Type.Optional(RegionName), expand: Type.Optional(BooleanText) }),
        response: {
          200: {
            ...Type.Ref(ClouddriverServerGroupOrList),
            description: "without region: the server groups of that name (one per region); with region: that one",
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const region = request.query.region;
      const { serverGroups, readAt } = await clusterServerGroups(p.account, p.app, p.cluster);
      const matching = serverGroups.filter(
        (sg) => sg.name.toLowerCase() === p.serverGroup.toLowerCase() && (region === undefined || sg.region === region),
      );
      if (matching.length === 0)
        throw notFound(`Server group not found (account: ${p.account}, name: ${p.serverGroup}, type: azure)`);
      stateFreshness(reply, readAt);
      return region === undefined ? matching : matching[0];
    },
  );
};

/** GET …/azure/{region}/serverGroups/target/{target}: the cluster's current, previous, oldest or largest server group in a region. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const targetServerGroupRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app, { clusterServerGroups }) => {
  app.get(
    "/applications/:app/clusters/:account/:cluster/azure/:scope/serverGroups/target/:target",
    {
      schema: {
        operationId: "clouddriverGetTargetServerGroup",
        description: FORWARDED,
        summary:
          "The cluster's current, previous, oldest or largest server group in a region, by createdTime (ClusterController.getTargetServerGroup)." +
          FRESHNESS,
        tags: ["clouddriver"],
        params: Type.Object({
          app: AppName,
          account: AccountName,
          cluster: ClusterName,
          scope: RegionName,
          target: TargetName,
        }),
        querystring: Type.Object({
          onlyEnabled: Type.Optional(BooleanText),
          validateOldest: Type.Optional(BooleanText),
        }),
        response: { 200: { ...Type.Ref(ClouddriverServerGroup), description: "the target server group" }, ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const target = parseTarget(p.target);
      if (!target) throw notFound(`Target not found (target: ${p.target})`);
      const { serverGroups, readAt } = await clusterServerGroups(p.account, p.app, p.cluster);
      const choice = chooseTarget(
        serverGroups.map((sg) => ({ ...sg, instanceCount: sg.instances.length })),
        target,
        p.scope,
        { onlyEnabled: request.query.onlyEnabled === "true", validateOldest: request.query.validateOldest !== "false" },
      );
      if (!choice.ok) throw notFound(`${choice.message} (account: ${p.account}, cluster: ${p.cluster}, type: azure)`);
      stateFreshness(reply, readAt);
      const { instanceCount: _count, ...serverGroup } = choice.serverGroup;
      return serverGroup;
    },
  );
};

/** GET /serverGroups/{account}/{region}/{serverGroup}: one server group, read through the cache. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const serverGroupRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app, { accounts, reads, account }) => {
  app.get(
    "/serverGroups/:account/:region/:serverGroup",
    {
      schema: {
        operationId: "clouddriverGetServerGroup",
        description: FORWARDED,
        summary:
          "A server group: capacity, instances with health, disabled (OortService.getServerGroup; WaitForCapacityMatch, WaitForDisabledServerGroup)." +
          FRESHNESS,
        tags: ["clouddriver"],
        params: Type.Object({ account: AccountName, region: RegionName, serverGroup: ScaleSetName }),
        response: { 200: { ...Type.Ref(ClouddriverServerGroup), description: "the server group" }, ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      account(p.account);
      const located = refFor(accounts, p.account, p.region, p.serverGroup);
      if (!located.ok)
        throw notFound(
          `server group ${p.serverGroup}: ${located.problems.map((x) => `${x.field}: ${x.message}`).join("; ")}`,
        );
      try {
        const snapshot = await reads.snapshot(located.ref);
        stateFreshness(reply, snapshot.readAt);
        return serverGroupView(snapshot.value, located.ref);
      } catch (err) {
        throw readFailureAnswer(
          err,
          `server group ${p.serverGroup} in ${p.account}/${p.region}/${located.ref.resourceGroup}`,
        );
      }
    },
  );
};

/** GET /cache/azure/ServerGroup: pending force-cache refreshes, always none. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const pendingCacheRefreshesRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app) => {
  app.get(
    "/cache/azure/ServerGroup",
    {
      schema: {
        operationId: "clouddriverPendingCacheRefreshes",
        description:
          "Orca's deploy stages wait until their force-cache refreshes are processed: here they are done when asked, so none is ever pending.",
        summary:
          "Pending force-cache refreshes: always none, since every read is at most READ_CACHE_TTL_MS old and our writes refresh it (CloudDriverCacheStatusService)",
        tags: ["clouddriver"],
        response: { 200: { ...Type.Ref(PendingCacheRefreshes), description: "always empty" } },
      },
    },
    () => [],
  );
};

/** POST /cache/azure/ServerGroup: drops a server group's cached reads, so that the next read asks Azure. */
const forceCacheRefreshRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (
  app,
  { accounts, reads, forwarder },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
  app.post(
    "/cache/azure/ServerGroup",
    {
      schema: {
        operationId: "clouddriverForceCacheRefresh",
        description: FORWARDED,
        summary:
          "Force-cache refresh of a server group: done at once, 200 (CloudDriverCacheService.forceCacheUpdate); the next read asks Azure",
        tags: ["clouddriver"],
        body: Type.Ref(ForceCacheRefresh),
        response: {
          200: {
            ...Type.Ref(ForceCacheRefreshResult),
            description: "the server groups whose cached reads were dropped",
          },
          ...errorResponses("ValidationError", ...FORWARDING_ERRORS),
        },
      },
    },
    (request) => {
      const b = request.body;
      const name = b.serverGroupName ?? b.asgName;
      if (!name) throw validationError([{ field: "serverGroupName", message: "required (asgName is accepted too)" }]);
      if (!accounts.get(b.account) && forwarder) throw new NotOurs();
      const located = accounts.get(b.account) ? refFor(accounts, b.account, b.region, name) : undefined;
      if (!located?.ok) return { refreshed: [] };
      reads.refresh(located.ref);
      return { refreshed: [`${b.account}/${b.region}/${located.ref.resourceGroup}/${name}`] };
    },
  );
};

const InstanceId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "Clouddriver's instance id for Azure: the VM's name, {scale set}_{suffix} (e.g. web-prod-v001_3)",
});

/**
 * GET /search?q={id}&type=instances: where a VM is, as TrafficGuard (its server group, by account and region) and
 * TerminatingInstanceSupport (whether it is still there: totalMatches) read it.
 */
const searchRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (
  app,
  { accounts, reads, forwarder, account },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
  app.get(
    "/search",
    {
      schema: {
        operationId: "clouddriverSearch",
        description:
          "Only instances are searched, by the VM's exact name, in the accounts the caller may read; any other type, or a platform other than azure, is an empty page. With CLOUDDRIVER_URL set, a search that finds no Azure VM here is forwarded to Clouddriver.",
        summary:
          "Search for an instance by its id, the VM's name: its account, region and server group (OortService.getSearchResults; TrafficGuard, TerminatingInstanceSupport)." +
          FRESHNESS,
        tags: ["clouddriver"],
        querystring: Type.Object({
          q: Type.String({ maxLength: 200, description: "the instance id: the VM's name" }),
          type: Type.String({ maxLength: 200, description: "instances (others find nothing here)" }),
          platform: Type.Optional(Type.String({ maxLength: 40 })),
          cloudProvider: Type.Optional(Type.String({ maxLength: 40, description: "as Orca sends it: azure" })),
          pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 10000 })),
          page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
        }),
        response: {
          200: {
            ...Type.Ref(ClouddriverSearchResults),
            description: "one page; totalMatches 0 and no results when no VM of that name is listed",
          },
          ...errorResponses("ValidationError", "AzureError", "AzureUnavailable", ...FORWARDING_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { q, type, platform, cloudProvider } = request.query;
      const pageSize = request.query.pageSize ?? 10000;
      const pageNumber = request.query.page ?? 1;
      const provider = platform ?? cloudProvider;
      const ours =
        type.split(",").some((t) => t.trim() === "instances") &&
        (provider === undefined || provider === CLOUD_PROVIDER);
      const results: ClouddriverInstanceMatch[] = [];
      let readAt = Date.now();
      if (ours && scaleSetOfVmName(q) !== undefined)
        for (const name of accounts.names().filter((n) => mayUseAccount(request.principal, n))) {
          try {
            const searched = await searchInstance(reads, account(name), q);
            readAt = Math.min(readAt, searched.readAt);
            if (searched.found) results.push(instanceMatch(searched.found, q));
          } catch (err) {
            throw readFailureAnswer(err, `instance ${q} in ${name}`);
          }
        }
      if (results.length === 0 && forwarder) throw new NotOurs();
      stateFreshness(reply, readAt);
      return [
        {
          platform: CLOUD_PROVIDER,
          query: q,
          totalMatches: results.length,
          pageNumber,
          pageSize,
          results: results.slice((pageNumber - 1) * pageSize, pageNumber * pageSize),
        },
      ];
    },
  );
};

/** GET /instances/{account}/{region}/{id}: one VM with its health, as WaitForDownInstanceHealthTask reads it. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const instanceRoute: FastifyPluginAsyncTypebox<ClouddriverReads> = async (app, { accounts, reads, account }) => {
  app.get(
    "/instances/:account/:region/:id",
    {
      schema: {
        operationId: "clouddriverGetInstance",
        description: FORWARDED,
        summary:
          "An instance, by the VM's name: its health and healthState, zone, launchTime (OortService.getInstance; WaitForDownInstanceHealthTask)." +
          FRESHNESS,
        tags: ["clouddriver"],
        params: Type.Object({ account: AccountName, region: RegionName, id: InstanceId }),
        response: { 200: { ...Type.Ref(ClouddriverInstance), description: "the instance" }, ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      account(p.account);
      const scaleSet = scaleSetOfVmName(p.id);
      if (scaleSet === undefined)
        throw notFound(
          `Instance not found (id: ${p.id}): an instance id here is the VM's name, {scale set}_{suffix}, which says its scale set`,
        );
      const located = refFor(accounts, p.account, p.region, scaleSet);
      if (!located.ok)
        throw notFound(
          `Instance not found (id: ${p.id}): scale set ${scaleSet}: ${located.problems.map((x) => `${x.field}: ${x.message}`).join("; ")}`,
        );
      try {
        const found = await instanceAt(reads, located.ref, p.id);
        if (!found)
          throw notFound(
            `Instance not found (id: ${p.id}): not listed in scale set ${scaleSet} (account ${p.account}, region ${p.region}, resource group ${located.ref.resourceGroup})`,
          );
        stateFreshness(reply, found.readAt);
        return instanceView(found.vm, found.vmss, p.region);
      } catch (err) {
        throw readFailureAnswer(err, `instance ${p.id} in ${p.account}/${p.region}/${located.ref.resourceGroup}`);
      }
    },
  );
};

export const clouddriverReadRoutes: FastifyPluginAsyncTypebox<ClouddriverReadOptions> = async (app, opts) => {
  const { accounts, forwarder } = opts;
  // What is not ours goes to Clouddriver, unchanged, when there is one: a request for an account we do not serve
  // before its names are validated as Azure names (an AWS region is not one), and whatever a route finds is not
  // ours (it throws NotOurs only when there is a Clouddriver).
  app.addHook("preValidation", async (request, reply) => {
    if (!forwarder) return;
    const named = namedAccount(request);
    if (typeof named === "string" && !accounts.get(named)) return forwarder.forward(request, reply);
  });
  // Reads of one account need read access to it; an application's view lists only the caller's accounts.
  // eslint-disable-next-line @typescript-eslint/require-await -- an async hook needs no done callback; this one waits for nothing
  app.addHook("preHandler", async (request) => {
    const named = namedAccount(request);
    if (typeof named === "string" && accounts.get(named)) requireAccount(request, named, "read");
  });
  app.setErrorHandler(async (err, request, reply) => {
    if (err instanceof NotOurs && forwarder) return forwarder.forward(request, reply);
    throw err;
  });
  const shared = clouddriverReads(opts);
  for (const route of [
    applicationRoute,
    clusterRoute,
    clusterServerGroupRoute,
    targetServerGroupRoute,
    serverGroupRoute,
    searchRoute,
    instanceRoute,
    pendingCacheRefreshesRoute,
    forceCacheRefreshRoute,
  ]) {
    await app.register(route, shared);
  }
};
