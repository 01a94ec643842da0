// GET /audit: the audit trail (src/tasks/audit.ts), newest first, a page at a time. Read-only: no route edits or
// deletes an entry. A caller sees the entries of accounts it may read; an entry that names no account (a forwarded
// write whose body was not read) only callers of every account see.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { TaskStore } from "../../tasks/task-store.ts";
import { accountsOfEntry, type AuditEntry as StoredEntry } from "../../tasks/audit.ts";
import { mayUseAccount, type Principal } from "../../auth/principal.ts";
import { isCursor } from "../../tasks/cursor.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses } from "../error-responses.ts";

export interface AuditRoutesOptions {
  store: TaskStore;
}

const AuditTarget = Type.Object(
  {
    operation: Type.String({ description: "the operation (resizeServerGroup), or a forwarded write's path" }),
    account: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    serverGroup: Type.Optional(Type.String()),
  },
  { $id: "AuditTarget", additionalProperties: false, description: "what a change acts on, one per operation" },
);

export const AuditEntry = Type.Object(
  {
    id: Type.String(),
    action: Type.Union([
      Type.Literal("submit"),
      Type.Literal("cancel"),
      Type.Literal("resume"),
      Type.Literal("forward"),
    ]),
    decision: Type.Union([Type.Literal("accepted"), Type.Literal("refused")], {
      description: "accepted: the change was made (a forward: handed to Clouddriver); refused: answered `status`",
    }),
    status: Type.Optional(Type.Integer({ description: "a refusal's HTTP status (403, 409)" })),
    reason: Type.Optional(Type.String({ description: "why it was refused" })),
    timeMs: Type.Integer({ description: "when it was accepted or refused, epoch ms" }),
    actor: Type.Object(
      {
        name: Type.String(),
        via: Type.String(),
        subject: Type.Optional(Type.String()),
        issuer: Type.Optional(Type.String()),
        application: Type.Optional(Type.String()),
        spinnakerUser: Type.Optional(Type.String()),
      },
      { additionalProperties: false, description: "who, and how that was proven (as TaskActor)" },
    ),
    remoteAddress: Type.String({
      description: "the caller's address (X-Forwarded-For's only through a proxy TRUSTED_PROXIES names)",
    }),
    peerAddress: Type.Optional(Type.String({ description: "the connection's address, when a trusted proxy's" })),
    targets: Type.Array(Type.Ref(AuditTarget)),
    clientRequestId: Type.Optional(Type.String()),
    taskId: Type.Optional(Type.String()),
    request: Type.Optional(Type.String({ description: "method and path, for forwarded writes and refusals" })),
    outcome: Type.Optional(
      Type.String({
        description:
          "how it ended, once known: the task's end state (succeeded, failed, canceled); a forwarded write's Clouddriver answer (clouddriver 200)",
      }),
    ),
    outcomeAtMs: Type.Optional(Type.Integer()),
  },
  {
    $id: "AuditEntry",
    additionalProperties: false,
    description: "who changed what, when, from where, and the outcome",
  },
);

const AuditPage = Type.Object(
  {
    entries: Type.Array(Type.Ref(AuditEntry)),
    nextCursor: Type.Optional(
      Type.String({ description: "pass as cursor for the next page; absent on the last page" }),
    ),
  },
  { $id: "AuditPage", additionalProperties: false },
);

export const auditSchemas = [AuditTarget, AuditEntry, AuditPage];

/** Whether the caller may read the entry: every account it names, or, for one naming none, every account. */
function mayRead(principal: Principal, entry: StoredEntry): boolean {
  const accounts = accountsOfEntry(entry);
  if (accounts.length === 0) return principal.accounts === "*";
  return accounts.every((a) => mayUseAccount(principal, a));
}

export const auditRoutes: FastifyPluginAsyncTypebox<AuditRoutesOptions> = async (app, { store }) => {
  app.get(
    "/audit",
    {
      schema: {
        operationId: "listAudit",
        summary: "The audit trail: who submitted, canceled, resumed or forwarded what, newest first, a page at a time",
        description:
          "Entries of accounts the caller may not read are left out (a page may then hold fewer than limit). Entries are kept AUDIT_RETENTION_DAYS (90), apart from the tasks; nothing edits or deletes them.",
        tags: ["audit"],
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 200, description: "nextCursor of the previous page" })),
            sinceMs: Type.Optional(
              Type.Integer({ minimum: 0, description: "entries at or after this time, epoch ms" }),
            ),
            untilMs: Type.Optional(Type.Integer({ minimum: 0, description: "entries before this time, epoch ms" })),
            principal: Type.Optional(Type.String({ maxLength: 300, description: "the actor's name, exactly" })),
            account: Type.Optional(Type.String({ maxLength: 100, description: "any case" })),
            serverGroup: Type.Optional(Type.String({ maxLength: 100 })),
            operation: Type.Optional(
              Type.String({
                maxLength: 100,
                description: "an operation (resizeServerGroup) or an action (submit, cancel, resume, forward)",
              }),
            ),
            taskId: Type.Optional(Type.String({ maxLength: 128 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: { ...Type.Ref(AuditPage), description: "Entries, newest first" },
          ...errorResponses("ValidationError", "InvalidCursor"),
        },
      },
    },
    async (request) => {
      const { limit, ...filters } = request.query;
      if (filters.cursor && !isCursor(filters.cursor)) throw apiError("InvalidCursor", { cursor: filters.cursor });
      const page = await store.listAudit({ limit: limit ?? 50, ...filters });
      const entries = page.entries.filter((e) => mayRead(request.principal, e));
      return { entries, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  );
};
