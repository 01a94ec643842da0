// Named component schemas: they validate, type the handlers, serialize responses and become
// components/schemas in the OpenAPI document.
import { TASK_STATES } from "../tasks/task-state.ts";
import { Type, type Static } from "@sinclair/typebox";
import { Capacity } from "../operations/description.ts";
import { WRITE_KINDS } from "../azure/vmss-gateway.ts";
import { catalogueEntries } from "./error-catalogue.ts";

export const FieldError = Type.Object(
  {
    field: Type.String({
      description:
        "where the problem is, as the client sent it: capacity.desired, [0].resizeServerGroup.region, query.limit",
    }),
    message: Type.String(),
  },
  { $id: "FieldError", additionalProperties: false },
);

export const ErrorResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String({
      enum: catalogueEntries().map((e) => e.code),
      description: "a stable code for programs, from the error catalogue",
    }),
    message: Type.String({ description: "for a person" }),
    details: Type.Optional(Type.Array(Type.Ref(FieldError))),
    knownOperations: Type.Optional(Type.Array(Type.String())),
    clientRequestId: Type.Optional(
      Type.String({
        description:
          "TaskOutcomeUnknown: the clientRequestId to repeat the submission with (also in the Client-Request-Id header)",
      }),
    ),
  },
  {
    $id: "ErrorResponse",
    additionalProperties: false,
    description: `Every error. Each route names the codes it answers; any route may also answer ${catalogueEntries()
      .filter((e) => e.scope === "any")
      .map((e) => `${e.status} ${e.code} (${e.when})`)
      .join("; ")}.`,
  },
);
export type ErrorResponse = Static<typeof ErrorResponse>;

/** The request's fields the service does not read (Orca's own known fields left out): src/api/ignored-fields.ts. */
const IgnoredFields = Type.Array(Type.String(), {
  description:
    'fields of the request the service does not read, as sent ("capcity", "[0].resizeServerGroup.capcity"); empty when it read them all. With Prefer: handling=strict they are a 400 instead',
});

export const TaskRef = Type.Object(
  {
    kind: Type.Literal("taskRef", { description: "which answer this is: a task to poll (Task is kind task)" }),
    id: Type.String(),
    resourceUri: Type.String({ description: "where to poll: /task/{id}" }),
    ignoredFields: Type.Optional(IgnoredFields),
  },
  { $id: "TaskRef", additionalProperties: false },
);

export const TaskStatus = Type.Object(
  {
    phase: Type.String(),
    status: Type.String(),
    complete: Type.Boolean(),
    completed: Type.Boolean(),
    failed: Type.Boolean(),
    retryable: Type.Boolean({ description: "on failure: the same request sent again later could succeed" }),
  },
  { $id: "TaskStatus", additionalProperties: false },
);

export const TaskState = Type.Union(
  TASK_STATES.map((s) => Type.Literal(s)),
  { $id: "TaskState" },
);

const serverGroupResultFields = {
  account: Type.String(),
  region: Type.String(),
  resourceGroup: Type.String(),
  serverGroupName: Type.String(),
  capacity: Type.Ref(Capacity),
  disabled: Type.Boolean(),
  instanceCount: Type.Optional(
    Type.Integer({ description: "instances Azure lists as running (not being created, deleted, or Failed)" }),
  ),
  instanceIds: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "those instances by id (a Flexible set's: VM names), as Azure lists them: after a scale-in, the ones Azure's scale-in policy kept",
    }),
  ),
  instanceIdsToDisable: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "a partial disable's (desiredPercentage below 100): the instances serving no traffic afterwards, by name, which Orca's WaitForRequiredInstancesDownTask waits to see down (clouddriver-aws's result object)",
    }),
  ),
  confirmed: Type.Optional(
    Type.Literal(false, {
      description:
        "present when Azure did not confirm the model (e.g. left the scale set Failed): capacity.desired is then the instances running",
    }),
  ),
  requestedCapacity: Type.Optional(
    Type.Integer({ description: "with confirmed false: the capacity in the model, which Azure did not reach" }),
  ),
  provisioningState: Type.Optional(Type.String()),
  etag: Type.Optional(Type.String()),
};

export const ServerGroupResult = Type.Object(
  {
    type: Type.Literal("serverGroup"),
    ...serverGroupResultFields,
  },
  {
    $id: "ServerGroupResult",
    additionalProperties: false,
    description: "an operation's result: what Azure confirmed afterwards, or (on failure) what it lists",
  },
);

export const CreatedServerGroupResult = Type.Object(
  {
    type: Type.Literal("createdServerGroup"),
    ...serverGroupResultFields,
    serverGroupNames: Type.Array(Type.String(), {
      description: "`region:name`, which Orca's MonitorKatoTask turns into deploy.server.groups",
    }),
    serverGroupNameByRegion: Type.Record(Type.String(), Type.String()),
    serverGroups: Type.Record(Type.String(), Type.Object({ name: Type.String() }, { additionalProperties: false }), {
      description: "clouddriver-azure's deploy result: region → { name }",
    }),
    ancestorServerGroupNameByRegion: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "the cluster's latest server group before this one" }),
    ),
    loadBalancerPools: Type.Array(Type.String(), {
      description: "backend pool ids it serves from when in traffic (recorded for enableServerGroup while disabled)",
    }),
    notCopied: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "cloneServerGroup: the source's fields that Azure never returns on a read and the body did not give, so not copied (virtualMachineProfile.osProfile.customData, virtualMachineProfile.extensionProfile.extensions[name].protectedSettings)",
      }),
    ),
  },
  {
    $id: "CreatedServerGroupResult",
    additionalProperties: false,
    description: "createServerGroup's and cloneServerGroup's result: the new server group as Azure confirmed it",
  },
);

export const DestroyedServerGroupResult = Type.Object(
  {
    type: Type.Literal("destroyedServerGroup"),
    account: Type.String(),
    region: Type.String(),
    resourceGroup: Type.String(),
    serverGroupName: Type.String(),
    deletedByThisTask: Type.Boolean({ description: "this task's delete removed it; false when it was gone already" }),
    confirmedBy: Type.String({
      description: "what Azure answered when the scale set was read afterwards, e.g. GET 404 ResourceNotFound",
    }),
  },
  {
    $id: "DestroyedServerGroupResult",
    additionalProperties: false,
    description: "destroyServerGroup's result: the scale set no longer exists, as Azure confirmed",
  },
);

export const TaskException = Type.Object(
  {
    type: Type.Literal("EXCEPTION"),
    operation: Type.String(),
    cause: Type.String({ description: "Azure's error code, or ours (e.g. ScaleSetBusy)" }),
    message: Type.String(),
  },
  {
    $id: "TaskException",
    additionalProperties: false,
    description: "why a task failed (Clouddriver's EXCEPTION result)",
  },
);

export const TaskActor = Type.Object(
  {
    name: Type.String({ description: "the principal's name (Orca's user under a token: \"user (via service)\")" }),
    via: Type.String({
      description:
        "how the caller was proven: open, token, oidc, spinnakerHeaders, token+spinnakerHeaders, oidc+spinnakerHeaders",
    }),
    subject: Type.Optional(Type.String({ description: "an OpenID Connect token's subject (Entra ID's oid)" })),
    issuer: Type.Optional(Type.String({ description: "an OpenID Connect token's issuer" })),
    application: Type.Optional(Type.String({ description: "the calling application (Entra ID's azp or appid)" })),
    spinnakerUser: Type.Optional(Type.String({ description: "the user Orca named in X-SPINNAKER-USER" })),
    timeMs: Type.Integer({ description: "when, epoch ms" }),
  },
  { $id: "TaskActor", additionalProperties: false, description: "who acted on a task, and how that was proven" },
);

export const Task = Type.Object(
  {
    kind: Type.Literal("task", { description: "which answer this is (a submission's: taskRef, task or dryRun)" }),
    id: Type.String(),
    startTimeMs: Type.Integer(),
    endTimeMs: Type.Optional(Type.Integer()),
    status: Type.Ref(TaskStatus),
    history: Type.Array(Type.Object({ phase: Type.String(), status: Type.String() }, { additionalProperties: false })),
    resultObjects: Type.Array(
      Type.Union([
        Type.Ref(ServerGroupResult),
        Type.Ref(CreatedServerGroupResult),
        Type.Ref(DestroyedServerGroupResult),
        Type.Ref(TaskException),
      ]),
      {
        description:
          "one result per finished operation (ServerGroupResult; CreatedServerGroupResult for createServerGroup and cloneServerGroup, also on a failure once a scale set exists; DestroyedServerGroupResult for destroyServerGroup); on failure, a last TaskException",
      },
    ),
    state: Type.Ref(TaskState),
    clientRequestId: Type.Optional(Type.String()),
    operations: Type.Array(Type.String()),
    armCalls: Type.Integer({ description: "ARM requests this task made, all attempts and polls included" }),
    traceId: Type.Optional(
      Type.String({
        pattern: "^[0-9a-f]{32}$",
        description:
          "the OpenTelemetry trace of this task (W3C trace id): its submission, and every run, attempt and ARM call on any replica; present when the service traced it (OTEL_EXPORTER_OTLP_ENDPOINT)",
      }),
    ),
    submittedBy: Type.Optional(Type.Ref(TaskActor, { description: "who submitted it (its audit entry, GET /audit)" })),
    canceledBy: Type.Optional(Type.Ref(TaskActor, { description: "who first asked to cancel it" })),
    resumedBy: Type.Optional(Type.Ref(TaskActor, { description: "who last resumed it" })),
  },
  {
    $id: "Task",
    additionalProperties: false,
    description: "Clouddriver's task shape, plus state, operations and armCalls",
  },
);

export const TaskList = Type.Object(
  {
    tasks: Type.Array(Type.Ref(Task)),
    nextCursor: Type.Optional(
      Type.String({ description: "pass as cursor for the next page; absent on the last page" }),
    ),
  },
  { $id: "TaskList", additionalProperties: false },
);

export const Instance = Type.Object(
  {
    instanceId: Type.String(),
    name: Type.Optional(Type.String()),
    provisioningState: Type.Optional(Type.String()),
    latestModelApplied: Type.Optional(Type.Boolean()),
    zone: Type.Optional(Type.String({ description: "the availability zone Azure placed the instance in, if zonal" })),
    inTraffic: Type.Optional(
      Type.Boolean({ description: "the instance is in at least one backend pool that is not a parking pool" }),
    ),
  },
  { $id: "Instance", additionalProperties: false },
);

export const ServerGroup = Type.Object(
  {
    account: Type.String(),
    region: Type.String(),
    resourceGroup: Type.String(),
    name: Type.String(),
    capacity: Type.Ref(Capacity),
    disabled: Type.Boolean(),
    disabledBy: Type.Optional(
      Type.Union([Type.Literal("pools"), Type.Literal("capacity"), Type.Literal("parkingPool")], {
        description:
          "pools, capacity: disabled by vmss-ops (its record in tags); parkingPool: only in clouddriver-azure's parking pools (default_LB_BAP, default_BAP0)",
      }),
    ),
    provisioningState: Type.Optional(Type.String()),
    upgradePolicy: Type.Optional(Type.String()),
    etag: Type.Optional(Type.String()),
    backendPools: Type.Array(Type.String(), { description: "backend pool ids on the scale set's model" }),
    zones: Type.Optional(
      Type.Array(Type.String(), {
        description: "the availability zones of the scale set; absent when it is not zonal",
      }),
    ),
    tags: Type.Record(Type.String(), Type.String(), {
      description: "the scale set's tags, vmss-ops' own records included",
    }),
    instances: Type.Array(Type.Ref(Instance), { description: "every VM Azure lists, in whatever state it lists it" }),
    instanceCount: Type.Integer({
      description: "instances Azure lists as running (not being created, deleted, or Failed)",
    }),
    disagreement: Type.Optional(
      Type.String({
        description: "present when the model and the instances disagree (a write in flight, a Failed scale set): how",
      }),
    ),
  },
  { $id: "ServerGroup", additionalProperties: false, description: "a scale set as Azure reports it now" },
);

export const Health = Type.Object(
  {
    status: Type.Literal("ok"),
    activeTasks: Type.Optional(
      Type.Integer({ description: "with access control on, only for a caller with credentials" }),
    ),
    accounts: Type.Optional(
      Type.Array(Type.String(), { description: "with access control on, only for a caller with credentials" }),
    ),
    operations: Type.Optional(
      Type.Array(Type.String(), { description: "with access control on, only for a caller with credentials" }),
    ),
  },
  { $id: "Health", additionalProperties: false },
);

export const ArmRequest = Type.Object(
  {
    method: Type.String({ description: "PUT, PATCH, POST or DELETE" }),
    path: Type.String({
      description:
        "the path and query as sent, with its api-version: /subscriptions/…/virtualMachineScaleSets/…?api-version=…",
    }),
    headers: Type.Optional(
      Type.Object(
        { "If-Match": Type.Optional(Type.String()), "If-None-Match": Type.Optional(Type.String()) },
        { additionalProperties: false, description: "the write's condition, when it carries one" },
      ),
    ),
    body: Type.Optional(
      Type.Unknown({
        description:
          "free-form: the JSON body as serialized for the wire, the ARM resource or action it writes; secrets read [redacted], as in the log",
      }),
    ),
  },
  {
    $id: "ArmRequest",
    additionalProperties: false,
    description: "one ARM request a write sends, recorded from the write a run makes",
  },
);

const PROPERTY_CHANGE_TYPES = ["Create", "Delete", "Modify", "Array", "NoEffect"] as const;

export const WhatIfPropertyChange = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        path: Type.String({ description: "dotted from the resource's root; an array's children are its indexes" }),
        propertyChangeType: Type.Union(
          PROPERTY_CHANGE_TYPES.map((k) => Type.Literal(k)),
          {
            description:
              "as Azure's what-if: Create, Delete, Modify, Array (nested changes of an array), NoEffect (a property Azure sets: provisioningState, etag, ids, timestamps)",
          },
        ),
        before: Type.Optional(Type.Unknown({ description: "free-form: the property's value in what Azure holds now" })),
        after: Type.Optional(Type.Unknown({ description: "free-form: the property's value once the write is done" })),
        children: Type.Optional(Type.Array(Self)),
      },
      { additionalProperties: false },
    ),
  { $id: "WhatIfPropertyChange", description: "one property's change, as Azure's what-if reports it" },
);

export const WhatIfChange = Type.Object(
  {
    resourceId: Type.String(),
    changeType: Type.Union(
      (["Create", "Delete", "Modify", "NoChange"] as const).map((k) => Type.Literal(k)),
      { description: "as Azure's what-if: what the write does to the resource" },
    ),
    delta: Type.Optional(
      Type.Array(Type.Ref(WhatIfPropertyChange), {
        description: "Modify and NoChange: each property that changes, against what Azure holds now",
      }),
    ),
  },
  {
    $id: "WhatIfChange",
    additionalProperties: false,
    description: "a resource's change, in the shape of Azure's deployment what-if",
  },
);

export const LaterWrite = Type.Object(
  {
    kind: Type.Union([...WRITE_KINDS, "wait" as const].map((kind) => Type.Literal(kind))),
    what: Type.String({ description: "what it writes, or waits for" }),
    decidedBy: Type.String({ description: "what decides it: the read after the write before" }),
  },
  {
    $id: "LaterWrite",
    additionalProperties: false,
    description: "a write (or wait) a run may make after the first, decided only then: no request is shown for it",
  },
);

export const DryRunOperation = Type.Object(
  {
    operation: Type.String(),
    account: Type.String(),
    region: Type.String(),
    resourceGroup: Type.String(),
    serverGroupName: Type.String({
      description: "the scale set the plan is for; a create's is the name it would choose now",
    }),
    preparation: Type.Optional(
      Type.Array(Type.String(), {
        description: "what a create found before planning, as its history would say it: the ancestor, the next name",
      }),
    ),
    read: Type.Object(
      {
        etag: Type.Optional(Type.String()),
        provisioningState: Type.Optional(Type.String()),
        capacity: Type.Optional(Type.Integer()),
      },
      { additionalProperties: false, description: "the read the plan was made against" },
    ),
    write: Type.Optional(
      Type.Object(
        {
          kind: Type.Union(WRITE_KINDS.map((kind) => Type.Literal(kind))),
          summary: Type.String({ description: "as the task's history would say it" }),
          ifMatch: Type.Optional(Type.String({ description: "the If-Match it would carry: the ETag of the read" })),
          requests: Type.Array(Type.Ref(ArmRequest), { description: "the ARM requests it sends, in order" }),
          changes: Type.Array(Type.Ref(WhatIfChange), {
            description:
              "what each request changes of what Azure holds now (none for an action on instances: an upgrade to the model, a restart)",
          }),
        },
        {
          additionalProperties: false,
          description: "the write a run would send first; a later one (a rollout) is planned on the read after it",
        },
      ),
    ),
    later: Type.Optional(
      Type.Array(Type.Ref(LaterWrite), {
        description: "with a write: what a run may write or wait for after it, and what decides each",
      }),
    ),
    unchanged: Type.Optional(Type.String({ description: "nothing would be written: what the plan found" })),
    busy: Type.Optional(
      Type.String({ description: "another write holds the scale set: a run would wait for it, then plan again" }),
    ),
    problem: Type.Optional(Type.Ref(TaskException)),
  },
  { $id: "DryRunOperation", additionalProperties: false },
);

export const DryRun = Type.Object(
  {
    kind: Type.Literal("dryRun", { description: "which answer this is (a submission's: taskRef, task or dryRun)" }),
    dryRun: Type.Literal(true),
    note: Type.String(),
    selection: Type.Optional(
      Type.Array(Type.String(), {
        description: "cluster operations: what would happen to each server group of the cluster, and why",
      }),
    ),
    operations: Type.Array(Type.Ref(DryRunOperation)),
    ignoredFields: Type.Optional(IgnoredFields),
  },
  {
    $id: "DryRun",
    additionalProperties: false,
    description: "?dryRun=true: the plan, nothing written, no task stored",
  },
);

/** What a submission answers with 200: the task (?wait=) or the plan (?dryRun=true). */
export const SubmissionAnswer = Type.Union([Type.Ref(Task), Type.Ref(DryRun)], {
  $id: "SubmissionAnswer",
  description:
    "with ?wait=, the task (as GET /task/{id} answers); with ?dryRun=true, the plan. kind tells them apart (and from the 202's taskRef)",
});

export const componentSchemas = [
  Capacity,
  FieldError,
  ErrorResponse,
  TaskRef,
  TaskStatus,
  TaskState,
  ServerGroupResult,
  CreatedServerGroupResult,
  DestroyedServerGroupResult,
  TaskException,
  TaskActor,
  Task,
  TaskList,
  Instance,
  ServerGroup,
  Health,
  ArmRequest,
  WhatIfPropertyChange,
  WhatIfChange,
  LaterWrite,
  DryRunOperation,
  DryRun,
  SubmissionAnswer,
];

/** ?wait=<seconds>: hold the request until the task ends or the time runs out, then answer with the task. */
export const WAIT_MAX_SECONDS = 60;
export const WaitSeconds = Type.Integer({
  minimum: 0,
  maximum: WAIT_MAX_SECONDS,
  description: `hold the answer until the task has ended or this many seconds (at most ${WAIT_MAX_SECONDS}) have passed, then answer with the task as GET /task/{id} does`,
});
