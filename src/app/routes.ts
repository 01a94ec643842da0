// Every route of the service, each group its own encapsulated plugin (src/api/routes/, src/ui/, src/observability/),
// registered once what every request goes through is in place (the dependencies below).
import fp from "fastify-plugin";
import { accessControlEnabled } from "../auth/access-config.ts";
import { simulatorPace } from "../config.ts";
import type { ClouddriverForwarder } from "../api/clouddriver-forwarding.ts";
import { docsRoutes } from "../api/docs.ts";
import { accountCheckRoutes } from "../api/routes/account-checks.ts";
import { auditRoutes } from "../api/routes/audit.ts";
import { clouddriverReadRoutes } from "../api/routes/clouddriver-reads.ts";
import { clusterOperationRoutes } from "../api/routes/cluster-operations.ts";
import { featureRoutes } from "../api/routes/features.ts";
import { healthRoutes } from "../api/routes/health.ts";
import { operationRoutes } from "../api/routes/operations.ts";
import { rateLimitRoutes } from "../api/routes/rate-limits.ts";
import { serverGroupRoutes } from "../api/routes/server-groups.ts";
import { taskRoutes } from "../api/routes/tasks.ts";
import { observabilityRoutes } from "../observability/routes.ts";
import { operations } from "../operations/registry.ts";
import { uiRoutes } from "../ui/routes.ts";
import type { ServiceParts } from "./parts.ts";

export interface ServiceRoutesOptions {
  parts: ServiceParts;
  forwarder: ClouddriverForwarder | undefined;
}

export const serviceRoutes = fp<ServiceRoutesOptions>(
  async (app, { parts, forwarder }) => {
    const { config, accounts, runner, store, waiter, audit, metrics, reads, readRetry } = parts;
    await app.register(docsRoutes, { oidcDiscoveryUrl: config.access.oidc?.discoveryUrl });
    await app.register(healthRoutes, {
      runner,
      accounts: accounts.names(),
      operations: [...operations.keys()],
      detailsNeedCredentials: accessControlEnabled(config.access),
    });
    if (!forwarder) await app.register(featureRoutes, { operations: [...operations.keys()] });
    await app.register(operationRoutes, {
      operations,
      accounts,
      runner,
      maxOperationsPerTask: config.tasks.maxOperations,
      forwarder,
      waiter,
      readRetry,
      audit,
      tasks: store,
      onSubmitted: (taskId, created, principal, ops) => {
        if (created) metrics.tasksSubmitted.inc();
        parts.taskLog.submitted(taskId, principal, ops, created);
      },
    });
    await app.register(taskRoutes, {
      store,
      forwarder,
      requeue: (task, entry, auditEntry) => runner.requeue(task, entry, auditEntry),
      onCancelRequested: (id) => runner.cancel(id),
      onCanceledBeforeStart: (task) => metrics.canceledBeforeStart(task),
      waiter,
      bodies: parts.bodies,
      audit,
    });
    await app.register(auditRoutes, { store });
    await app.register(serverGroupRoutes, { accounts, readRetry });
    await app.register(clouddriverReadRoutes, { accounts, reads, forwarder });
    await app.register(clusterOperationRoutes, { accounts, reads, runner, operations, waiter, audit, tasks: store });
    const { progress } = parts;
    await app.register(uiRoutes, { store, progress, accounts, reads, maxAttempts: config.retry.maxAttempts });
    await app.register(observabilityRoutes, {
      metrics,
      store,
      storeHealth: parts.storeHealth,
      backlog: parts.backlog,
      accounts,
      onAccountChecked: (account, ok) => metrics.azureAccountReachable.set({ account }, ok ? 1 : 0),
      eventLoopLag: parts.eventLoopLag,
      readyCacheMs: config.observability.readyCacheMs,
      probeTimeoutMs: config.observability.readyTimeoutMs,
    });
    await app.register(rateLimitRoutes, { budget: parts.budget, accounts });
    await app.register(accountCheckRoutes, {
      accounts,
      armBudget: parts.armBudget,
      simulatorPace: () => simulatorPace(config),
    });
  },
  {
    name: "routes",
    dependencies: [
      "error-handling",
      "page-security-headers",
      "request-log",
      "draining",
      "access-control",
      "documented-answers",
      "audit-trail",
      "overload",
      "json-bodies",
      "shared-schemas",
    ],
  },
);
