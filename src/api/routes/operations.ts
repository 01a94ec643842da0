// POST /azure/ops/{operation} (one description) and POST /azure/ops (Clouddriver's list body): both create one task.
import { isDeepStrictEqual } from "node:util";
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RetryConfig } from "../../azure/retry-policy.ts";
import type { AccountRegistry } from "../../azure/accounts.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import { withoutNulls, type FieldProblem } from "../../operations/description.ts";
import type { AnyOperation, LocatedDescription } from "../../operations/operation.ts";
import { locate } from "../../operations/locate.ts";
import type { SubmittedOperation, TaskRunner } from "../../tasks/task-runner.ts";
import { requireAccount } from "../access-control.ts";
import { accountsNamedIn } from "../../auth/named-accounts.ts";
import type { OperationRequest, Task } from "../../tasks/task.ts";
import type { TaskStore } from "../../tasks/task-store.ts";
import type { ClouddriverForwarder } from "../clouddriver-forwarding.ts";
import { validationError } from "../errors.ts";
import { ApiError, apiError } from "../error-catalogue.ts";
import { errorResponses, FORWARDING_ERRORS } from "../error-responses.ts";
import { readFailureAnswer } from "../failure-answers.ts";
import { SubmissionAnswer, TaskRef, WaitSeconds } from "../schemas.ts";
import { dryRun } from "../dry-run.ts";
import type { TaskWaiter } from "../../tasks/task-waiter.ts";
import { answerSubmitted } from "../client-gone.ts";
import { submissionRequestId } from "../submission-id.ts";
import {
  ignoredFieldProblems,
  ignoredFields,
  ignoredFieldsHistory,
  prefersStrictHandling,
  strictHandling,
} from "../ignored-fields.ts";
import type { AuditTrail } from "../audit-trail.ts";
import { targetsOf } from "../../tasks/audit.ts";
import { inSubmissionSpan } from "../../tracing/spans.ts";

export interface OperationRoutesOptions {
  operations: ReadonlyMap<string, AnyOperation>;
  accounts: AccountRegistry;
  runner: TaskRunner;
  maxOperationsPerTask: number;
  /** When set, operations we do not have are Clouddriver's: forwarded, and a list body that names one goes whole. */
  forwarder?: ClouddriverForwarder;
  /** Told of every accepted submission (logs and metrics). */
  onSubmitted?: (taskId: string, created: boolean, principal: string, operations: string[]) => void;
  /** Holds ?wait= submissions until their task ends. */
  waiter: TaskWaiter;
  /** The retry profile of a dry run's reads (readRetry). */
  readRetry: RetryConfig;
  /** Records each submission with its task (who, from where, what). */
  audit?: AuditTrail;
  /**
   * Where a repeated submission finds the task the first one made: by its clientRequestId before anything else
   * (madeEarlier), and whose VM is gone since (confirmLocated).
   */
  tasks?: Pick<TaskStore, "list" | "findByClientRequestId">;
}

const ClientRequestIdQuery = Type.Object(
  {
    clientRequestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: "^[\\x21-\\x7e]+$",
        description: "printable ASCII without spaces, up to 128 characters",
      }),
    ),
    wait: Type.Optional(WaitSeconds),
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          "read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored",
      }),
    ),
  },
  { additionalProperties: false },
);

/** What every single-operation route does with its request, beside what the operation itself does (its summary). */
const SUBMISSION =
  "Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.";

const accepted = {
  200: {
    ...Type.Ref(SubmissionAnswer),
    description:
      "With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan",
  },
  202: {
    ...Type.Ref(TaskRef),
    description:
      "The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read",
  },
  ...errorResponses(
    "ValidationError",
    "InvalidJson",
    "EmptyBody",
    "ForbiddenKey",
    "BodyTooDeep",
    "ClientRequestIdReused",
    "BacklogFull",
    "TaskOutcomeUnknown",
    "PayloadTooLarge",
    "UnsupportedMediaType",
    "NotFound",
    "AzureError",
    "AzureUnavailable",
  ),
};

type SubmissionQuery = Static<typeof ClientRequestIdQuery>;

/** Key order does not count: a store may hand the request back with its keys reordered (PostgreSQL's jsonb does). */
function sameOperations(a: OperationRequest[], b: OperationRequest[]): boolean {
  return isDeepStrictEqual(a, b);
}

/**
 * Cross-field rules and where the operation acts, located here once: its target, which the task keeps (the store
 * orders it by that, and the run acts on it), or the problems, with field names prefixed as the client sent them.
 */
function checkDescription(
  accounts: AccountRegistry,
  op: AnyOperation,
  description: LocatedDescription,
  prefix: string,
): { problems: FieldProblem[]; target?: ScaleSetRef } {
  const located = locate(accounts, op, description);
  const problems = [...(op.check?.(description) ?? []), ...(located.ok ? [] : located.problems)].map((p) => ({
    field: prefix ? `${prefix}.${p.field}` : p.field,
    message: p.message,
  }));
  return located.ok ? { problems, target: located.ref } : { problems };
}

/**
 * The description as the task keeps it. One that names no scale set, its VM names naming it (Deck's one-instance
 * reboot and terminate), is confirmed on Azure now (the VMs are listed under that scale set), and stored with the name
 * so located, which the task is ordered by and acts on; what Azure does not list is a 404 naming what was looked for,
 * unless the same clientRequestId made a task on it before (a repeat, the VM terminated since): that task is answered.
 * `notes`: what the task's history says of it.
 */
async function confirmLocated(
  opts: OperationRoutesOptions,
  op: AnyOperation,
  description: LocatedDescription,
  target: ScaleSetRef,
  notes: string[],
  clientRequestId: string | undefined,
): Promise<LocatedDescription> {
  if (description.serverGroupName !== undefined || !op.confirmLocated) return description;
  const located = locatedAsStored(op, description, target);
  let missing: string | undefined;
  try {
    missing = await op.confirmLocated(description, target, { accounts: opts.accounts, retry: opts.readRetry });
  } catch (err) {
    const answer = readFailureAnswer(
      err,
      `scale set ${target.name} (account ${target.account}, region ${target.region}, resource group ${target.resourceGroup}; located from the VM's name, serverGroupName not given)`,
    );
    if (
      answer instanceof ApiError &&
      answer.error === "NotFound" &&
      (await madeBefore(opts, op, target, clientRequestId))
    )
      return located;
    throw answer;
  }
  if (missing !== undefined) {
    if (await madeBefore(opts, op, target, clientRequestId)) return located;
    throw apiError("NotFound", { what: missing });
  }
  notes.push(
    `serverGroupName not given: ${target.name}, read from the VM name(s) and confirmed on Azure (the VMs are listed under it)`,
  );
  return located;
}

/**
 * Under strict handling, what the operation reads from Azure to refuse what it would not do as sent (a clone's
 * fields Azure never returns): 400 details, prefixed as the description's; a failed read answered as a read's.
 */
async function strictRefusals(
  opts: OperationRoutesOptions,
  op: AnyOperation,
  description: LocatedDescription,
  prefix: string,
): Promise<FieldProblem[]> {
  if (!op.strictProblems) return [];
  try {
    const problems = await op.strictProblems(description, { accounts: opts.accounts, retry: opts.readRetry });
    return problems.map((p) => ({ field: prefix ? `${prefix}.${p.field}` : p.field, message: p.message }));
  } catch (err) {
    throw readFailureAnswer(err, `the source of ${op.name} (${JSON.stringify(description.source ?? {})})`);
  }
}

/** A list body's strictRefusals, item by item: one 400 naming them all. */
async function refuseUnstrict(opts: OperationRoutesOptions, requests: SubmittedOperation[]): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const [i, r] of requests.entries()) {
    const op = opts.operations.get(r.name)!;
    problems.push(...(await strictRefusals(opts, op, r.description as LocatedDescription, `[${i}].${r.name}`)));
  }
  if (problems.length > 0) throw validationError(problems);
}

/** The description as confirmLocated stores it once Azure confirmed it (what a repeat is compared with). */
function locatedAsStored(op: AnyOperation, description: LocatedDescription, target: ScaleSetRef): LocatedDescription {
  if (description.serverGroupName !== undefined || !op.confirmLocated) return description;
  return { ...description, serverGroupName: target.name };
}

/**
 * The task an earlier request with this clientRequestId made, looked up before anything that could refuse or fail the
 * repeat (Azure's reads, the backlog limit, a create queued behind others): a retry is answered the work it already
 * made. Not for a dry run, which makes nothing.
 */
async function madeEarlier(opts: OperationRoutesOptions, query: SubmissionQuery): Promise<Task | undefined> {
  if (query.dryRun || query.clientRequestId === undefined || !opts.tasks) return undefined;
  return opts.tasks.findByClientRequestId(query.clientRequestId);
}

/** Whether a task of `op` on `target` was made for this clientRequestId already (among the newest 500 there). */
async function madeBefore(
  opts: OperationRoutesOptions,
  op: AnyOperation,
  target: ScaleSetRef,
  clientRequestId: string | undefined,
): Promise<boolean> {
  if (clientRequestId === undefined || !opts.tasks) return false;
  const page = await opts.tasks.list({ limit: 500, operation: op.name, serverGroup: target.name });
  return page.tasks.some((task) => task.clientRequestId === clientRequestId);
}

/**
 * Every account the request would act on must be the caller's, checked on the raw body before validation, so
 * that a caller learns nothing about another team's accounts from validation messages.
 */
// eslint-disable-next-line @typescript-eslint/require-await -- an async hook needs no done callback; this one waits for nothing
export async function authorizeWrite(request: FastifyRequest): Promise<void> {
  if (request.principal.readOnly)
    throw apiError("Forbidden", {
      why: `${request.principal.name} may only read: a write needs a principal that is not readOnly`,
    });
  // Every account the body names, nested ones included (a clone's source: read), by the walk forwarded writes use.
  for (const { account, access } of accountsNamedIn(request.body).references) requireAccount(request, account, access);
}

/** The runner creates the task (or finds the one with this clientRequestId), recorded with its audit entry. */
async function createTask(
  opts: OperationRoutesOptions,
  request: FastifyRequest,
  located: SubmittedOperation[],
  clientRequestId: string,
  ignored: string[],
  notes: string[],
): Promise<{ task: Task; created: boolean }> {
  const audit = opts.audit?.accepted(request, "submit", targetsOf(located), { clientRequestId });
  const history = [
    ...(ignoredFieldsHistory(ignored) ?? []),
    ...notes.map((status) => ({ phase: "INIT", status, timeMs: Date.now() })),
  ];
  const made = await inSubmissionSpan(request, { "vmss.operations": located.map((r) => r.name) }, () =>
    opts.runner.submit(located, clientRequestId, history.length > 0 ? history : undefined, audit),
  );
  if (audit && made.created) opts.audit!.recorded(request, { ...audit, taskId: made.task.id });
  return made;
}

/**
 * Creates the task (or answers the one `earlier` made with this clientRequestId); with ?wait=, answers 200 with the task once it ended or the time ran out, else 202 with its ref.
 * `ignored`: the request's fields the service does not read, named in the answer and in the task's history.
 */
async function submit(
  opts: OperationRoutesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  located: SubmittedOperation[],
  query: SubmissionQuery,
  ignored: string[],
  notes: string[] = [],
  earlier?: Task,
) {
  const requests: OperationRequest[] = located.map(({ name, description }) => ({ name, description }));
  const { wait } = query;
  if (query.dryRun)
    return reply
      .code(200)
      .send({ ...(await dryRun(opts.accounts, opts.operations, requests, opts.readRetry)), ignoredFields: ignored });
  const clientRequestId = submissionRequestId(query.clientRequestId);
  const { task, created } = earlier
    ? { task: earlier, created: false }
    : await createTask(opts, request, located, clientRequestId, ignored, notes);
  opts.onSubmitted?.(
    task.id,
    created,
    request.principal.name,
    requests.map((r) => r.name),
  );
  if (!created && !sameOperations(task.operations, requests))
    throw apiError("ClientRequestIdReused", { clientRequestId, taskId: task.id });
  return answerSubmitted(opts.waiter, task, wait, reply, ignored);
}

/** POST /azure/ops/{operation}, one route per operation served: its body is that operation's description. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const singleOperations: FastifyPluginAsyncTypebox<OperationRoutesOptions> = async (app, opts) => {
  for (const op of opts.operations.values()) {
    app.post(
      `/azure/ops/${op.name}`,
      {
        schema: {
          operationId: op.name,
          summary: op.summary,
          description: SUBMISSION,
          tags: ["operations"],
          querystring: ClientRequestIdQuery,
          body: Type.Ref(op.schema),
          response: accepted,
        },
        preValidation: async (request, reply) => {
          strictHandling(request, reply);
          request.body = withoutNulls(request.body);
          await authorizeWrite(request);
        },
      },
      async (request, reply) => {
        const sent = request.body as LocatedDescription;
        const ignored = ignoredFields(op.schema, sent);
        const { problems, target } = checkDescription(opts.accounts, op, sent, "");
        if (prefersStrictHandling(request.headers.prefer)) problems.push(...ignoredFieldProblems(ignored, op.name));
        if (problems.length > 0) throw validationError(problems);
        const notes: string[] = [];
        const earlier = await madeEarlier(opts, request.query);
        if (!earlier && prefersStrictHandling(request.headers.prefer)) {
          const refused = await strictRefusals(opts, op, sent, "");
          if (refused.length > 0) throw validationError(refused);
        }
        const description = earlier
          ? locatedAsStored(op, sent, target!)
          : await confirmLocated(opts, op, sent, target!, notes, request.query.clientRequestId);
        const named = ignored.map((f) => f.field);
        const submitted = [{ name: op.name, description, target }];
        return submit(opts, request, reply, submitted, request.query, named, notes, earlier);
      },
    );
  }
};

/** POST /azure/ops/{anything else}: 404 naming the operations there are (or Clouddriver's, when one is configured). */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const unknownOperation: FastifyPluginAsyncTypebox<OperationRoutesOptions> = async (app, opts) => {
  const known = [...opts.operations.keys()];
  app.post(
    "/azure/ops/:operation",
    {
      // With a Clouddriver configured, the request goes there before its body is read (clouddriver-forwarding.ts).
      config: { forwardToClouddriver: opts.forwarder !== undefined },
      schema: {
        operationId: "unknownOperation",
        description:
          "Without CLOUDDRIVER_URL, an operation this service does not run answers 404 UnknownOperation with the operations it does run. With CLOUDDRIVER_URL set, the request goes to Clouddriver as it came, and Clouddriver's answer comes back as it answered.",
        summary:
          "Any other operation name: 404 listing the known ones, or forwarded to Clouddriver when CLOUDDRIVER_URL is set",
        tags: ["operations"],
        params: Type.Object({ operation: Type.String({ maxLength: 200 }) }),
        response: errorResponses("UnknownOperation", ...FORWARDING_ERRORS),
      },
    },
    (request) => {
      throw apiError("UnknownOperation", { operation: request.params.operation, known });
    },
  );
};

/** Items of a list body that name an operation we do not serve, as field problems. */
function unknownOperationsIn(body: unknown[], operations: ReadonlyMap<string, AnyOperation>): FieldProblem[] {
  const known = [...operations.keys()];
  return body.flatMap((item, i) =>
    typeof item !== "object" || item === null || Array.isArray(item)
      ? []
      : Object.keys(item)
          .filter((key) => !operations.has(key))
          .map((key) => ({ field: `[${i}].${key}`, message: `unknown operation; known: ${known.join(", ")}` })),
  );
}

/** Whether a list body names an operation we do not serve (it then goes to Clouddriver whole, when there is one). */
function namesAnotherOperation(body: unknown[], operations: ReadonlyMap<string, AnyOperation>): boolean {
  return body.some(
    (item) =>
      typeof item === "object" &&
      item !== null &&
      !Array.isArray(item) &&
      Object.keys(item).some((k) => !operations.has(k)),
  );
}

/** POST /azure/ops: Clouddriver's list body, [{ "resizeServerGroup": {...} }, ...], one task running them in order. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const operationList: FastifyPluginAsyncTypebox<OperationRoutesOptions> = async (app, opts) => {
  const { operations } = opts;
  // Each item names exactly one operation; every key is optional in the schema so that validation errors point
  // into the item.
  const BatchItem = Type.Object(
    Object.fromEntries([...operations.values()].map((op) => [op.name, Type.Optional(Type.Ref(op.schema))])),
    {
      $id: "OperationEnvelope",
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      description: 'exactly one operation: { "<operationName>": <its description> }',
    },
  );
  app.addSchema(BatchItem);

  app.post(
    "/azure/ops",
    {
      schema: {
        operationId: "submitOperations",
        description:
          "Clouddriver's list body: each item names one operation and its description. One task runs them in order and stops at the first that fails. ?wait= holds the answer until the task ends; ?dryRun=true plans every item against the state just read and writes nothing. null in a description means absent, as Orca sends it.",
        summary: "Run several operations, in order, as one task (Clouddriver's list body)",
        tags: ["operations"],
        querystring: ClientRequestIdQuery,
        body: Type.Array(Type.Ref(BatchItem), { minItems: 1, maxItems: opts.maxOperationsPerTask }),
        // A list body that names an operation served elsewhere goes to Clouddriver whole, when there is one (its 400s
        // are accepted's, with InvalidPath).
        response: {
          ...accepted,
          ...errorResponses(
            "ValidationError",
            "InvalidJson",
            "EmptyBody",
            "ForbiddenKey",
            "BodyTooDeep",
            ...FORWARDING_ERRORS,
          ),
        },
      },
      // Name unknown operations before the schema would quietly strip them and report a count mismatch; with a
      // Clouddriver configured, a body that names one goes there whole, as sent.
      preValidation: async (request, reply) => {
        strictHandling(request, reply);
        await authorizeWrite(request);
        const body = request.body;
        if (!Array.isArray(body)) return;
        request.body = withoutNulls(body);
        if (opts.forwarder && namesAnotherOperation(body, operations)) return opts.forwarder.forward(request, reply);
        const problems = unknownOperationsIn(body, operations);
        if (problems.length > 0) throw validationError(problems);
      },
    },
    async (request, reply) => {
      const requests: SubmittedOperation[] = [];
      const problems: FieldProblem[] = [];
      const ignored: string[] = [];
      const strict = prefersStrictHandling(request.headers.prefer);
      request.body.forEach((item, i) => {
        const [name, description] = Object.entries(item)[0] as [string, LocatedDescription];
        const op = operations.get(name)!;
        const checked = checkDescription(opts.accounts, op, description, `[${i}].${name}`);
        problems.push(...checked.problems);
        const unread = ignoredFields(op.schema, description, `[${i}].${name}`);
        if (strict) problems.push(...ignoredFieldProblems(unread, name));
        ignored.push(...unread.map((f) => f.field));
        requests.push({ name, description, target: checked.target });
      });
      if (problems.length > 0) throw validationError(problems);
      const notes: string[] = [];
      const earlier = await madeEarlier(opts, request.query);
      if (!earlier && strict) await refuseUnstrict(opts, requests);
      for (const [i, r] of requests.entries()) {
        const op = operations.get(r.name)!;
        const sent = r.description as LocatedDescription;
        const description = earlier
          ? locatedAsStored(op, sent, r.target!)
          : await confirmLocated(opts, op, sent, r.target!, notes, request.query.clientRequestId);
        requests[i] = { ...r, description };
      }
      return submit(opts, request, reply, requests, request.query, ignored, notes, earlier);
    },
  );
};

export const operationRoutes: FastifyPluginAsyncTypebox<OperationRoutesOptions> = async (app, opts) => {
  await app.register(singleOperations, opts);
  await app.register(unknownOperation, opts);
  await app.register(operationList, opts);
};
