// POST /azure/ops/scaleDownCluster and /azure/ops/disableCluster: Orca's cluster-wide stages for callers without
// Orca. The cluster is read and the selection made when the request comes in (plan time), and the task holds one
// operation per server group acted on (resizeServerGroup to 0, or disableServerGroup), so that the store orders it
// by the scale sets it names, like any other task; its history starts with one line per server group of the cluster
// saying what happens to it and why. The selection is Orca's (src/operations/cluster-selection.ts).
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../../azure/accounts.ts";
import type { AccountConfig } from "../../azure/account-config.ts";
import type { ScaleSetReads } from "../../azure/read-cache.ts";
import { normalizeRegion } from "../../azure/vmss-gateway.ts";
import { RegionName, withoutNulls } from "../../operations/description.ts";
import { expand, listServerGroups } from "../../clouddriver/listing.ts";
import { parseName, type Moniker } from "../../naming/frigga.ts";
import {
  isActive,
  selectDisable,
  selectScaleDown,
  type ClusterMember,
  type MemberDecision,
} from "../../operations/cluster-selection.ts";
import { requireAccount } from "../access-control.ts";
import type { TaskRunner } from "../../tasks/task-runner.ts";
import { phaseOf } from "../../tasks/task-runner.ts";
import type { HistoryEntry, OperationRequest, Task } from "../../tasks/task.ts";
import type { TaskStore } from "../../tasks/task-store.ts";
import { validationError } from "../errors.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses } from "../error-responses.ts";
import { SubmissionAnswer, TaskRef, WaitSeconds } from "../schemas.ts";
import type { AnyOperation } from "../../operations/operation.ts";
import type { TaskWaiter } from "../../tasks/task-waiter.ts";
import { answerSubmitted } from "../client-gone.ts";
import { dryRun } from "../dry-run.ts";
import { readFailureAnswer } from "../failure-answers.ts";
import {
  ignoredFieldProblems,
  ignoredFields,
  ignoredFieldsHistory,
  prefersStrictHandling,
  strictHandling,
} from "../ignored-fields.ts";
import type { AuditTrail } from "../audit-trail.ts";
import { targetsOf } from "../../tasks/audit.ts";
import { submissionRequestId } from "../submission-id.ts";
import { inSubmissionSpan } from "../../tracing/spans.ts";

export interface ClusterOperationRoutesOptions {
  accounts: AccountRegistry;
  reads: ScaleSetReads;
  runner: TaskRunner;
  /** The per-server-group operations, for ?dryRun=true. */
  operations: ReadonlyMap<string, AnyOperation>;
  waiter: TaskWaiter;
  /** Records each submission with its task (who, from where, what). */
  audit?: AuditTrail;
  /** Where a repeated submission finds, by its clientRequestId, the task the first one made, before reading Azure. */
  tasks?: Pick<TaskStore, "findByClientRequestId">;
}

const located = {
  credentials: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "the account (Orca's name for it)" }),
  ),
  account: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  cluster: Type.String({
    minLength: 1,
    maxLength: 80,
    pattern: "^[A-Za-z0-9._-]+$",
    description: "app, app-stack or app-stack-detail (Frigga)",
  }),
  regions: Type.Optional(Type.Array(RegionName, { minItems: 1, maxItems: 50 })),
  region: Type.Optional(RegionName),
  preferLargerOverNewer: Type.Optional(Type.Boolean({ description: "keep the largest rather than the newest" })),
};

export const ScaleDownClusterDescription = Type.Object(
  {
    ...located,
    remainingFullSizeServerGroups: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: "server groups left at full size (default 1)" }),
    ),
    allowScaleDownActive: Type.Optional(
      Type.Boolean({ description: "active server groups may be scaled down too (default false)" }),
    ),
  },
  { $id: "ScaleDownClusterDescription", additionalProperties: true },
);

export const DisableClusterDescription = Type.Object(
  {
    ...located,
    remainingEnabledServerGroups: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: "enabled server groups left enabled (default 1)" }),
    ),
  },
  { $id: "DisableClusterDescription", additionalProperties: true },
);

type Located = Static<typeof ScaleDownClusterDescription> & Static<typeof DisableClusterDescription>;

interface ClusterOperation {
  name: "scaleDownCluster" | "disableCluster";
  schema: typeof ScaleDownClusterDescription | typeof DisableClusterDescription;
  summary: string;
  select(members: ClusterMember[], d: Located): MemberDecision[];
  /** The operation sent for a server group acted on. */
  act(base: Record<string, unknown>): OperationRequest;
}

const CLUSTER_OPERATIONS: ClusterOperation[] = [
  {
    name: "scaleDownCluster",
    schema: ScaleDownClusterDescription,
    summary:
      "Scale a cluster's older server groups down to 0, keeping remainingFullSizeServerGroups (Orca's ScaleDownCluster)",
    select: (members, d) =>
      selectScaleDown(members, {
        remainingFullSizeServerGroups: d.remainingFullSizeServerGroups ?? 1,
        preferLargerOverNewer: d.preferLargerOverNewer ?? false,
        allowScaleDownActive: d.allowScaleDownActive ?? false,
      }),
    // ScaleDownClusterTask#buildOperationPayload: a resize to 0/0/0.
    act: (base) => ({ name: "resizeServerGroup", description: { ...base, capacity: { min: 0, max: 0, desired: 0 } } }),
  },
  {
    name: "disableCluster",
    schema: DisableClusterDescription,
    summary:
      "Disable a cluster's older enabled server groups, keeping remainingEnabledServerGroups (Orca's DisableCluster)",
    select: (members, d) =>
      selectDisable(members, {
        remainingEnabledServerGroups: d.remainingEnabledServerGroups ?? 1,
        preferLargerOverNewer: d.preferLargerOverNewer ?? false,
      }),
    act: (base) => ({ name: "disableServerGroup", description: base }),
  },
];

export const clusterOperationSchemas = [ScaleDownClusterDescription, DisableClusterDescription];

const ClusterQuery = Type.Object(
  {
    clientRequestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: "^[\\x21-\\x7e]+$",
        description:
          "printable ASCII without spaces, up to 128 characters: the same request again (an orchestrator retrying) is the same task",
      }),
    ),
    wait: Type.Optional(WaitSeconds),
    dryRun: Type.Optional(
      Type.Boolean({ description: "the selection and each server group's plan; nothing written, no task stored" }),
    ),
  },
  { additionalProperties: false },
);

/** A cluster request's account, cluster name and regions, or the 400 naming each field that is wrong. */
function checkClusterRequest(
  accounts: AccountRegistry,
  d: Located,
): { account: AccountConfig; moniker: Moniker; regions: Set<string> } {
  const accountName = d.credentials ?? d.account;
  const account = accountName ? accounts.get(accountName) : undefined;
  const moniker = parseName(d.cluster);
  const problems = [
    ...(!accountName
      ? [{ field: "credentials", message: "is required (or account)" }]
      : !account
        ? [{ field: "credentials", message: `unknown account; known: ${accounts.names().join(", ")}` }]
        : []),
    ...(!moniker || moniker.cluster !== d.cluster
      ? [{ field: "cluster", message: "must be a cluster name: app, app-stack or app-stack-detail" }]
      : []),
    ...(!d.regions && !d.region ? [{ field: "regions", message: "is required (or region)" }] : []),
  ];
  if (problems.length > 0 || !account || !moniker) throw validationError(problems);
  return { account, moniker, regions: new Set((d.regions ?? [d.region!]).map(normalizeRegion)) };
}

type ClusterServerGroups = Awaited<ReturnType<typeof expand>>["value"];

/**
 * The cluster's server groups in those regions, with their VMs, read afresh: what to act on is decided on fresh
 * reads, not on what Orca's polls left in the cache (a server group enabled by another tool a few seconds ago is active).
 */
async function readCluster(
  reads: ScaleSetReads,
  account: AccountConfig,
  moniker: Moniker,
  cluster: string,
  regions: Set<string>,
): Promise<ClusterServerGroups> {
  reads.forgetAccount(account.name);
  try {
    const found = await listServerGroups(reads, account, { application: moniker.app, cluster });
    return (
      await expand(
        reads,
        found.value.filter((l) => regions.has(normalizeRegion(l.ref.region))),
      )
    ).value;
  } catch (err) {
    throw readFailureAnswer(err, `cluster ${cluster} in ${account.name}`);
  }
}

/** What the request does to each server group: the operations to run, and one history line for each server group. */
function plan(
  op: ClusterOperation,
  d: Located,
  account: AccountConfig,
  serverGroups: ClusterServerGroups,
  regions: Set<string>,
): { operations: OperationRequest[]; history: HistoryEntry[] } {
  const operations: OperationRequest[] = [];
  const history: HistoryEntry[] = [];
  const phase = phaseOf(op.name);
  // Orca selects per location (AbstractClusterWideClouddriverTask l.107-117): each region on its own.
  for (const region of [...regions].sort()) {
    const inRegion = serverGroups.filter((sg) => normalizeRegion(sg.region) === region);
    const members = inRegion.map((sg) => ({
      name: sg.name,
      createdTime: sg.createdTime ?? 0,
      instanceCount: sg.instances.length,
      active: isActive(sg),
    }));
    for (const decision of op.select(members, d)) {
      const sg = inRegion.find((s) => s.name === decision.name)!;
      history.push({ phase, status: `${sg.name} (${region}): ${decision.reason}`, timeMs: Date.now() });
      if (decision.act)
        operations.push(
          op.act({
            credentials: account.name,
            region: sg.region,
            resourceGroup: sg.resourceGroup,
            serverGroupName: sg.name,
          }),
        );
    }
  }
  if (history.length === 0)
    history.push({
      phase,
      status: `no server group of cluster ${d.cluster} in ${[...regions].join(", ")}: nothing to do`,
      timeMs: Date.now(),
    });
  return { operations, history };
}

/** What a cluster operation's submission answers beside 200 and 202. */
const SUBMISSION_ERRORS = [
  "ValidationError",
  "ClientRequestIdReused",
  "BacklogFull",
  "TaskOutcomeUnknown",
  "AzureError",
  "AzureUnavailable",
] as const;

/** POST /azure/ops/{scaleDownCluster|disableCluster}: reads the cluster, selects, and creates the task (or plans it). */
function clusterOperationRoute(op: ClusterOperation): FastifyPluginAsyncTypebox<ClusterOperationRoutesOptions> {
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
  return async (app, { accounts, reads, runner, operations: registry, waiter, audit, tasks }) => {
    app.post(
      `/azure/ops/${op.name}`,
      {
        schema: {
          operationId: op.name,
          summary: op.summary,
          description:
            "The cluster is read and the selection made now; the task runs one operation per server group acted on, and its history starts with one line per server group of the cluster saying what happens to it and why.",
          tags: ["operations"],
          querystring: ClusterQuery,
          body: Type.Ref(op.schema),
          response: {
            200: {
              ...Type.Ref(SubmissionAnswer),
              description:
                "With ?wait=: the task once it ended or the time ran out. With ?dryRun=true: the selection and the plans",
            },
            202: {
              ...Type.Ref(TaskRef),
              description:
                "The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read",
            },
            ...errorResponses(...SUBMISSION_ERRORS),
          },
        },
        preValidation: async (request, reply) => {
          strictHandling(request, reply);
          // null means absent, as in every operation's description (Orca sends its stage context with nulls).
          request.body = withoutNulls(request.body);
          if (request.principal.readOnly)
            throw apiError("Forbidden", {
              why: `${request.principal.name} may only read: a write needs a principal that is not readOnly`,
            });
          const body = request.body as { credentials?: unknown; account?: unknown } | null;
          for (const name of [body?.credentials, body?.account])
            if (typeof name === "string") requireAccount(request, name, "write");
        },
      },
      async (request, reply) => {
        const d = request.body as Located;
        const ignored = ignoredFields(op.schema, d);
        if (prefersStrictHandling(request.headers.prefer) && ignored.length > 0)
          throw validationError(ignoredFieldProblems(ignored, op.name));
        const named = ignored.map((f) => f.field);
        const { account, moniker, regions } = checkClusterRequest(accounts, d);
        const { wait, dryRun: dry } = request.query;
        const clientRequestId = submissionRequestId(request.query.clientRequestId);
        const earlier = await madeEarlier(tasks, request.query);
        let made: { task: Task; created: boolean };
        if (earlier) made = { task: earlier, created: false };
        else {
          const serverGroups = await readCluster(reads, account, moniker, d.cluster, regions);
          const { operations, history } = plan(op, d, account, serverGroups, regions);
          if (dry)
            return reply
              .code(200)
              .send({ ...(await dryRun(accounts, registry, operations, reads.retry, history)), ignoredFields: named });
          const entry = audit?.accepted(request, "submit", targetsOf(operations), { clientRequestId });
          const lines = [...(ignoredFieldsHistory(named) ?? []), ...history];
          made = await inSubmissionSpan(request, { "vmss.operations": [op.name] }, () =>
            runner.submit(operations, clientRequestId, lines, entry),
          );
          if (entry && made.created) audit!.recorded(request, { ...entry, taskId: made.task.id });
        }
        const { task, created } = made;
        // A retry is read and selected again, and may pick differently now (the first request's task already acted):
        // it is the same request when the task found acts on this cluster, account and regions, with this operation.
        if (!created && !sameClusterRequest(task.operations, op, account.name, d.cluster, regions)) {
          throw apiError("ClientRequestIdReused", { clientRequestId, taskId: task.id });
        }
        return answerSubmitted(waiter, task, wait, reply, named);
      },
    );
  };
}

/**
 * The task an earlier request with this clientRequestId made: a repeat is answered it before the cluster is read again
 * (Azure may be slow or throttling) and before the backlog limit. Not for a dry run, which makes nothing.
 */
async function madeEarlier(
  tasks: ClusterOperationRoutesOptions["tasks"],
  query: { clientRequestId?: string; dryRun?: boolean },
): Promise<Task | undefined> {
  if (query.dryRun || query.clientRequestId === undefined) return undefined;
  return tasks?.findByClientRequestId(query.clientRequestId);
}

export const clusterOperationRoutes: FastifyPluginAsyncTypebox<ClusterOperationRoutesOptions> = async (app, opts) => {
  for (const op of CLUSTER_OPERATIONS) await app.register(clusterOperationRoute(op), opts);
};

/** Whether a task's operations are what this cluster request makes: its operation, on server groups of the cluster. */
function sameClusterRequest(
  existing: OperationRequest[],
  op: ClusterOperation,
  account: string,
  cluster: string,
  regions: Set<string>,
): boolean {
  const name = op.act({}).name;
  return existing.every((o) => {
    const d = o.description as { credentials?: string; region?: string; serverGroupName?: string };
    return (
      o.name === name &&
      d.credentials === account &&
      regions.has(normalizeRegion(d.region ?? "")) &&
      parseName(d.serverGroupName ?? "")?.cluster === cluster
    );
  });
}
