// Generated from openapi/openapi.json by scripts/write-client.ts (npm run client). Do not edit.
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness; with credentials (or without access control), the tasks in flight, accounts and operations
         * @description For liveness probes: answers 200 while the process serves requests, whatever Azure or the task store do (GET /ready says whether it can work). Open to all; the details need credentials when access control is on.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/features/stages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The operations this service runs, as Clouddriver lists them for Orca
         * @description Orca's FeaturesService asks which stages it may run (Clouddriver's GET /features/stages): each operation this service runs, enabled. Not served when CLOUDDRIVER_URL is set: Clouddriver answers it.
         */
        get: operations["getStageFeatures"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/resizeServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a scale set's capacity (and record min and max)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["resizeServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/disableServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a scale set out of traffic (remove its backend pools, or scale it to 0 when it has none)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["disableServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/enableServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put a scale set back into traffic, exactly as disable took it out
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["enableServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/scaleDown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lower a scale set's capacity (to 0 by default); never raises it
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["scaleDown"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/terminateInstances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace named instances of a scale set: delete them, then restore the capacity so that Azure creates new ones (Orca's TerminateInstances)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["terminateInstances"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/terminateInstanceAndDecrementServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete one instance and take the scale set's size down by one, lowering its recorded min if asked (Deck's terminate and shrink)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["terminateInstanceAndDecrementServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/rebootInstances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restart named instances of a scale set (Uniform: the scale set's restart; Flexible: each VM's)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["rebootInstances"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/destroyServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete a scale set; one that is gone already counts as done
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["destroyServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/createServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the next server group of a cluster (app-stack-detail-vNNN), in traffic once its instances are healthy (Deck's and Orca's deploy)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["createServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/cloneServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the next server group of a cluster with the source's model and the given overrides (Orca's clone stage)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["cloneServerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/rollingUpgrade": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a model change and replace out-of-date instances in batches, surging above the desired count (maxSurge, maxUnavailable)
         * @description Answers 202 with a task to poll at GET /task/{id} (Clouddriver's task shape); a repeated clientRequestId finds the task the first request made. A request without one is given one (the task's clientRequestId). 503 TaskOutcomeUnknown: the task may have been created; repeat the request with the clientRequestId it gives to get it (created at most once). ?wait= holds the answer until the task ends or the time runs out, then answers 200 with the task. ?dryRun=true reads the scale set, plans against what it read and answers 200 with the plan: nothing is written and no task is stored. null in the description means absent, as Orca sends it.
         */
        post: operations["rollingUpgrade"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/{operation}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Any other operation name: 404 listing the known ones, or forwarded to Clouddriver when CLOUDDRIVER_URL is set
         * @description Without CLOUDDRIVER_URL, an operation this service does not run answers 404 UnknownOperation with the operations it does run. With CLOUDDRIVER_URL set, the request goes to Clouddriver as it came, and Clouddriver's answer comes back as it answered.
         */
        post: operations["unknownOperation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run several operations, in order, as one task (Clouddriver's list body)
         * @description Clouddriver's list body: each item names one operation and its description. One task runs them in order and stops at the first that fails. ?wait= holds the answer until the task ends; ?dryRun=true plans every item against the state just read and writes nothing. null in a description means absent, as Orca sends it.
         */
        post: operations["submitOperations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/task/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A task, in Clouddriver's shape
         * @description With CLOUDDRIVER_URL set, an id that is not one of ours is asked of Clouddriver, and its answer relayed as it came.
         */
        get: operations["getTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/task/{id}:resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a failed, retryable task again (Clouddriver's POST /task/{id}:resume)
         * @description Only a task whose status.retryable is true can be resumed: it is queued again, and the operation that failed runs from a fresh read of the scale set. A task already queued or running answers 200 as well, so a repeated call is harmless.
         */
        post: operations["resumeTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/task/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop a task at its next safe point; it ends canceled, saying what was done and what was not
         * @description A queued task that no replica has claimed ends canceled at once (state canceled). One just claimed, about to start its first attempt, answers with state still queued and ends canceled before any read or write. A running one stops at its next safe point: between attempts, during a backoff, before a write, or once a write Azure accepted has ended (it is never cut off mid-write); until then its state stays running. So read state (or status.completed), and poll GET /task/{id}?wait= until the task has ended. A repeated call is harmless. A task that has ended answers 409.
         */
        post: operations["cancelTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/task": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tasks, newest first, a page at a time, filtered by state, operation or server group
         * @description Only the tasks the caller may see (those on its accounts): a page may hold fewer than limit. nextCursor continues where the page ended, also while new tasks arrive.
         */
        get: operations["listTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit trail: who submitted, canceled, resumed or forwarded what, newest first, a page at a time
         * @description Entries of accounts the caller may not read are left out (a page may then hold fewer than limit). Entries are kept AUDIT_RETENTION_DAYS (90), apart from the tasks; nothing edits or deletes them.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/serverGroups/{account}/{region}/{resourceGroup}/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A scale set as Azure reports it now: capacity, instances, traffic, ETag
         * @description Read from Azure now (not from the read cache): the model, the instances and whether each is in traffic, vmss-ops' own tags, and the ETag a write would carry. A read Azure fails in a way that asking again can change is 503 with Retry-After.
         */
        get: operations["getServerGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/applications/{app}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An application: its Azure clusters by account (Clouddriver's ApplicationsController). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, an application with no Azure server groups here is forwarded to Clouddriver.
         */
        get: operations["clouddriverGetApplication"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/applications/{app}/clusters/{account}/{cluster}/azure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A cluster and its server groups with their instances (OortService.getCluster). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        get: operations["clouddriverGetCluster"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/applications/{app}/clusters/{account}/{cluster}/azure/serverGroups/{serverGroup}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A server group of a cluster: a list, or one server group when ?region= is given (OortService.getServerGroupsFromClusterTyped). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        get: operations["clouddriverGetServerGroupFromCluster"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/applications/{app}/clusters/{account}/{cluster}/azure/{scope}/serverGroups/target/{target}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The cluster's current, previous, oldest or largest server group in a region, by createdTime (ClusterController.getTargetServerGroup). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        get: operations["clouddriverGetTargetServerGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/serverGroups/{account}/{region}/{serverGroup}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A server group: capacity, instances with health, disabled (OortService.getServerGroup; WaitForCapacityMatch, WaitForDisabledServerGroup). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        get: operations["clouddriverGetServerGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search for an instance by its id, the VM's name: its account, region and server group (OortService.getSearchResults; TrafficGuard, TerminatingInstanceSupport). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description Only instances are searched, by the VM's exact name, in the accounts the caller may read; any other type, or a platform other than azure, is an empty page. With CLOUDDRIVER_URL set, a search that finds no Azure VM here is forwarded to Clouddriver.
         */
        get: operations["clouddriverSearch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/instances/{account}/{region}/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An instance, by the VM's name: its health and healthState, zone, launchTime (OortService.getInstance; WaitForDownInstanceHealthTask). Freshness: X-Azure-Read-At and Age headers (data at most READ_CACHE_TTL_MS old).
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        get: operations["clouddriverGetInstance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cache/azure/ServerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pending force-cache refreshes: always none, since every read is at most READ_CACHE_TTL_MS old and our writes refresh it (CloudDriverCacheStatusService)
         * @description Orca's deploy stages wait until their force-cache refreshes are processed: here they are done when asked, so none is ever pending.
         */
        get: operations["clouddriverPendingCacheRefreshes"];
        put?: never;
        /**
         * Force-cache refresh of a server group: done at once, 200 (CloudDriverCacheService.forceCacheUpdate); the next read asks Azure
         * @description With CLOUDDRIVER_URL set, a request for an account not configured here is forwarded to Clouddriver as it came, before any name in it is checked.
         */
        post: operations["clouddriverForceCacheRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/scaleDownCluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Scale a cluster's older server groups down to 0, keeping remainingFullSizeServerGroups (Orca's ScaleDownCluster)
         * @description The cluster is read and the selection made now; the task runs one operation per server group acted on, and its history starts with one line per server group of the cluster saying what happens to it and why.
         */
        post: operations["scaleDownCluster"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/ops/disableCluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a cluster's older enabled server groups, keeping remainingEnabledServerGroups (Orca's DisableCluster)
         * @description The cluster is read and the selection made now; the task runs one operation per server group acted on, and its history starts with one line per server group of the cluster saying what happens to it and why.
         */
        post: operations["disableCluster"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/api/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tasks for the status page: in flight first, then recent (paged), with their progress and the caller's actions
         * @description Filters are case-insensitive substrings. A page of recent tasks looks through at most 2000 stored tasks; nextCursor continues from there.
         */
        get: operations["uiListTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/api/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One task for the status page, with its history (times included), progress and the caller's actions
         * @description What the status page shows of one task: its history with times, its progress through the operations and attempts, and whether the caller may cancel or resume it. Only for a caller that may use the task's accounts.
         */
        get: operations["uiGetTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/api/inventory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The scale sets of the accounts the caller may read, by account and cluster, from the read cache
         * @description Capacity, instances in traffic and the last task of each. An account that cannot be listed says why, beside the others.
         */
        get: operations["uiInventory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description Requests, tasks, attempts, ARM calls and throttling, the read cache and the backlog, for Prometheus to scrape. With access control on it needs a token unless METRICS_REQUIRE_TOKEN=false opens it.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: this replica's task store answers and its event loop turns (Azure's state shown beside)
         * @description For readiness probes and load balancers: 200 while this replica can serve, 503 with what is wrong when what is its own fails: its task store does not answer (or cannot be written: SQLite on a full disk answers reads), or its event loop was held up longer than READY_TIMEOUT_MS. Azure, which every replica shares, is shown (accounts, checked in the background) and never makes it unready: Azure slow or down for all would take every replica out at once while task reads could still be answered. Open to all; the answer is cached for READY_CACHE_MS.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/azure/rateLimits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Azure's remaining throttling budget, as its last responses reported it (newest first)
         * @description Azure's x-ms-ratelimit-remaining-* headers from this replica's latest ARM responses, per subscription and policy: how close the service is to throttling. Only the subscriptions of the accounts the caller may use.
         */
        get: operations["getRateLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accounts/{account}/checks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Checks an account against Azure now: credential, subscription, providers, permissions, quota, named resources
         * @description What `vmss-ops doctor` shows: each check OK, WARN or FAIL, with what was found and, for WARN and FAIL, the exact fix (the role to assign and where, the provider to register, the quota to request). Only reads; readable by principals that may read the account.
         */
        get: operations["checkAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checks/latest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The last result of the account checks, per account the caller may read (the status page)
         * @description What GET /accounts/{account}/checks answered last on this replica, in short: the worst status, when, and the checks that FAILed or WARNed. Nothing is read from Azure.
         */
        get: operations["latestAccountChecks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accounts/{account}/resource-groups/{resourceGroup}/contents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a resource group holds, as Azure lists it: each resource's id, type and tags
         * @description What `vmss-ops conformance` reads before it starts (it refuses a group holding anything it did not tag) and after it cleans up. Reads only; readable by principals that may read the account.
         */
        get: operations["resourceGroupContents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accounts/{account}/regions/{region}/vm-sizes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The VM sizes a region offers the account's subscription, smallest first, with their quota headroom
         * @description Azure's resource SKUs of the region (vCPUs, memory, quota family, and the restrictions that keep a size from the subscription) with the Compute usages' headroom per size: what `vmss-ops conformance` reads to make its scale sets of the smallest size it may use. Reads only; readable by principals that may read the account.
         */
        get: operations["regionVmSizes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Instance counts, 0 to 1000: min ≤ desired ≤ max (a resize lowers a higher min to desired). */
        Capacity: {
            min: number;
            max: number;
            desired: number;
        };
        FieldError: {
            /** @description where the problem is, as the client sent it: capacity.desired, [0].resizeServerGroup.region, query.limit */
            field: string;
            message: string;
        };
        /** @description Every error. Each route names the codes it answers; any route may also answer 400 ValidationError (a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit)); 400 InvalidJson (the body is not JSON); 400 EmptyBody (a body was expected and is empty); 400 ForbiddenKey (the body has a __proto__ or constructor.prototype key); 400 BodyTooDeep (the body nests deeper than BODY_MAX_DEPTH); 400 InvalidContentLength (the Content-Length header does not match the body (as fastify says it)); 400 BadRequest (another 4xx fastify decides on before a route runs (its status is kept)); 400 InvalidPath (a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments)); 401 Unauthorized (with access control on: no token, or a wrong one (WWW-Authenticate says which, RFC 6750: invalid_token for a bad, expired or foreign token)); 403 Forbidden (with access control on: an account the caller may not use, or a write by a read-only caller); 404 NotFound (an unknown task, route or scale set (what was looked for, and where to look)); 413 PayloadTooLarge (a body over BODY_LIMIT_BYTES); 415 UnsupportedMediaType (a body that is not application/json, or not UTF-8); 429 TooManyRequests (too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS)); 431 HeadersTooLarge (the request line and headers are larger than Node's maxHeaderSize (16 KB), refused before any route runs); 500 InternalError (a bug in this service (logged), never a refusal of good input); 502 ClouddriverUnavailable (a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it); 503 IdentityProviderUnavailable (an OpenID Connect token could not be checked: the issuer's discovery document or keys cannot be read); 503 TaskStoreUnavailable (the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done); 503 Overloaded (this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory)); 503 ShuttingDown (this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer); 504 ClouddriverTimeout (a request forwarded to Clouddriver got no answer in time). */
        ErrorResponse: {
            statusCode: number;
            /**
             * @description a stable code for programs, from the error catalogue
             * @enum {string}
             */
            error: "ValidationError" | "InvalidJson" | "EmptyBody" | "ForbiddenKey" | "BodyTooDeep" | "InvalidContentLength" | "BadRequest" | "InvalidCursor" | "InvalidPath" | "Unauthorized" | "Forbidden" | "NotFound" | "UnknownOperation" | "ClientRequestIdReused" | "TaskNotRetryable" | "TaskFinished" | "PayloadTooLarge" | "UnsupportedMediaType" | "TooManyRequests" | "HeadersTooLarge" | "BacklogFull" | "InternalError" | "AzureError" | "ClouddriverUnavailable" | "AzureUnavailable" | "IdentityProviderUnavailable" | "TaskStoreUnavailable" | "TaskOutcomeUnknown" | "Overloaded" | "ShuttingDown" | "ClouddriverTimeout";
            /** @description for a person */
            message: string;
            details?: components["schemas"]["FieldError"][];
            knownOperations?: string[];
            /** @description TaskOutcomeUnknown: the clientRequestId to repeat the submission with (also in the Client-Request-Id header) */
            clientRequestId?: string;
        };
        TaskRef: {
            /**
             * @description which answer this is: a task to poll (Task is kind task)
             * @enum {string}
             */
            kind: "taskRef";
            id: string;
            /** @description where to poll: /task/{id} */
            resourceUri: string;
            /** @description fields of the request the service does not read, as sent ("capcity", "[0].resizeServerGroup.capcity"); empty when it read them all. With Prefer: handling=strict they are a 400 instead */
            ignoredFields?: string[];
        };
        TaskStatus: {
            phase: string;
            status: string;
            complete: boolean;
            completed: boolean;
            failed: boolean;
            /** @description on failure: the same request sent again later could succeed */
            retryable: boolean;
        };
        TaskState: "queued" | "running" | "succeeded" | "failed" | "canceled";
        /** @description an operation's result: what Azure confirmed afterwards, or (on failure) what it lists */
        ServerGroupResult: {
            /** @enum {string} */
            type: "serverGroup";
            account: string;
            region: string;
            resourceGroup: string;
            serverGroupName: string;
            capacity: components["schemas"]["Capacity"];
            disabled: boolean;
            /** @description instances Azure lists as running (not being created, deleted, or Failed) */
            instanceCount?: number;
            /** @description those instances by id (a Flexible set's: VM names), as Azure lists them: after a scale-in, the ones Azure's scale-in policy kept */
            instanceIds?: string[];
            /** @description a partial disable's (desiredPercentage below 100): the instances serving no traffic afterwards, by name, which Orca's WaitForRequiredInstancesDownTask waits to see down (clouddriver-aws's result object) */
            instanceIdsToDisable?: string[];
            /**
             * @description present when Azure did not confirm the model (e.g. left the scale set Failed): capacity.desired is then the instances running
             * @enum {boolean}
             */
            confirmed?: false;
            /** @description with confirmed false: the capacity in the model, which Azure did not reach */
            requestedCapacity?: number;
            provisioningState?: string;
            etag?: string;
        };
        /** @description createServerGroup's and cloneServerGroup's result: the new server group as Azure confirmed it */
        CreatedServerGroupResult: {
            /** @enum {string} */
            type: "createdServerGroup";
            account: string;
            region: string;
            resourceGroup: string;
            serverGroupName: string;
            capacity: components["schemas"]["Capacity"];
            disabled: boolean;
            /** @description instances Azure lists as running (not being created, deleted, or Failed) */
            instanceCount?: number;
            /** @description those instances by id (a Flexible set's: VM names), as Azure lists them: after a scale-in, the ones Azure's scale-in policy kept */
            instanceIds?: string[];
            /** @description a partial disable's (desiredPercentage below 100): the instances serving no traffic afterwards, by name, which Orca's WaitForRequiredInstancesDownTask waits to see down (clouddriver-aws's result object) */
            instanceIdsToDisable?: string[];
            /**
             * @description present when Azure did not confirm the model (e.g. left the scale set Failed): capacity.desired is then the instances running
             * @enum {boolean}
             */
            confirmed?: false;
            /** @description with confirmed false: the capacity in the model, which Azure did not reach */
            requestedCapacity?: number;
            provisioningState?: string;
            etag?: string;
            /** @description `region:name`, which Orca's MonitorKatoTask turns into deploy.server.groups */
            serverGroupNames: string[];
            serverGroupNameByRegion: {
                [key: string]: string;
            };
            /** @description clouddriver-azure's deploy result: region → { name } */
            serverGroups: {
                [key: string]: {
                    name: string;
                };
            };
            /** @description the cluster's latest server group before this one */
            ancestorServerGroupNameByRegion?: {
                [key: string]: string;
            };
            /** @description backend pool ids it serves from when in traffic (recorded for enableServerGroup while disabled) */
            loadBalancerPools: string[];
            /** @description cloneServerGroup: the source's fields that Azure never returns on a read and the body did not give, so not copied (virtualMachineProfile.osProfile.customData, virtualMachineProfile.extensionProfile.extensions[name].protectedSettings) */
            notCopied?: string[];
        };
        /** @description destroyServerGroup's result: the scale set no longer exists, as Azure confirmed */
        DestroyedServerGroupResult: {
            /** @enum {string} */
            type: "destroyedServerGroup";
            account: string;
            region: string;
            resourceGroup: string;
            serverGroupName: string;
            /** @description this task's delete removed it; false when it was gone already */
            deletedByThisTask: boolean;
            /** @description what Azure answered when the scale set was read afterwards, e.g. GET 404 ResourceNotFound */
            confirmedBy: string;
        };
        /** @description why a task failed (Clouddriver's EXCEPTION result) */
        TaskException: {
            /** @enum {string} */
            type: "EXCEPTION";
            operation: string;
            /** @description Azure's error code, or ours (e.g. ScaleSetBusy) */
            cause: string;
            message: string;
        };
        /** @description who acted on a task, and how that was proven */
        TaskActor: {
            /** @description the principal's name (Orca's user under a token: "user (via service)") */
            name: string;
            /** @description how the caller was proven: open, token, oidc, spinnakerHeaders, token+spinnakerHeaders, oidc+spinnakerHeaders */
            via: string;
            /** @description an OpenID Connect token's subject (Entra ID's oid) */
            subject?: string;
            /** @description an OpenID Connect token's issuer */
            issuer?: string;
            /** @description the calling application (Entra ID's azp or appid) */
            application?: string;
            /** @description the user Orca named in X-SPINNAKER-USER */
            spinnakerUser?: string;
            /** @description when, epoch ms */
            timeMs: number;
        };
        /** @description Clouddriver's task shape, plus state, operations and armCalls */
        Task: {
            /**
             * @description which answer this is (a submission's: taskRef, task or dryRun)
             * @enum {string}
             */
            kind: "task";
            id: string;
            startTimeMs: number;
            endTimeMs?: number;
            status: components["schemas"]["TaskStatus"];
            history: {
                phase: string;
                status: string;
            }[];
            /** @description one result per finished operation (ServerGroupResult; CreatedServerGroupResult for createServerGroup and cloneServerGroup, also on a failure once a scale set exists; DestroyedServerGroupResult for destroyServerGroup); on failure, a last TaskException */
            resultObjects: (components["schemas"]["ServerGroupResult"] | components["schemas"]["CreatedServerGroupResult"] | components["schemas"]["DestroyedServerGroupResult"] | components["schemas"]["TaskException"])[];
            state: components["schemas"]["TaskState"];
            clientRequestId?: string;
            operations: string[];
            /** @description ARM requests this task made, all attempts and polls included */
            armCalls: number;
            /** @description the OpenTelemetry trace of this task (W3C trace id): its submission, and every run, attempt and ARM call on any replica; present when the service traced it (OTEL_EXPORTER_OTLP_ENDPOINT) */
            traceId?: string;
            submittedBy?: components["schemas"]["TaskActor"];
            canceledBy?: components["schemas"]["TaskActor"];
            resumedBy?: components["schemas"]["TaskActor"];
        };
        TaskList: {
            tasks: components["schemas"]["Task"][];
            /** @description pass as cursor for the next page; absent on the last page */
            nextCursor?: string;
        };
        Instance: {
            instanceId: string;
            name?: string;
            provisioningState?: string;
            latestModelApplied?: boolean;
            /** @description the availability zone Azure placed the instance in, if zonal */
            zone?: string;
            /** @description the instance is in at least one backend pool that is not a parking pool */
            inTraffic?: boolean;
        };
        /** @description a scale set as Azure reports it now */
        ServerGroup: {
            account: string;
            region: string;
            resourceGroup: string;
            name: string;
            capacity: components["schemas"]["Capacity"];
            disabled: boolean;
            /** @description pools, capacity: disabled by vmss-ops (its record in tags); parkingPool: only in clouddriver-azure's parking pools (default_LB_BAP, default_BAP0) */
            disabledBy?: "pools" | "capacity" | "parkingPool";
            provisioningState?: string;
            upgradePolicy?: string;
            etag?: string;
            /** @description backend pool ids on the scale set's model */
            backendPools: string[];
            /** @description the availability zones of the scale set; absent when it is not zonal */
            zones?: string[];
            /** @description the scale set's tags, vmss-ops' own records included */
            tags: {
                [key: string]: string;
            };
            /** @description every VM Azure lists, in whatever state it lists it */
            instances: components["schemas"]["Instance"][];
            /** @description instances Azure lists as running (not being created, deleted, or Failed) */
            instanceCount: number;
            /** @description present when the model and the instances disagree (a write in flight, a Failed scale set): how */
            disagreement?: string;
        };
        Health: {
            /** @enum {string} */
            status: "ok";
            /** @description with access control on, only for a caller with credentials */
            activeTasks?: number;
            /** @description with access control on, only for a caller with credentials */
            accounts?: string[];
            /** @description with access control on, only for a caller with credentials */
            operations?: string[];
        };
        /** @description one ARM request a write sends, recorded from the write a run makes */
        ArmRequest: {
            /** @description PUT, PATCH, POST or DELETE */
            method: string;
            /** @description the path and query as sent, with its api-version: /subscriptions/…/virtualMachineScaleSets/…?api-version=… */
            path: string;
            /** @description the write's condition, when it carries one */
            headers?: {
                "If-Match"?: string;
                "If-None-Match"?: string;
            };
            /** @description free-form: the JSON body as serialized for the wire, the ARM resource or action it writes; secrets read [redacted], as in the log */
            body?: unknown;
        };
        /** @description one property's change, as Azure's what-if reports it */
        WhatIfPropertyChange: {
            /** @description dotted from the resource's root; an array's children are its indexes */
            path: string;
            /** @description as Azure's what-if: Create, Delete, Modify, Array (nested changes of an array), NoEffect (a property Azure sets: provisioningState, etag, ids, timestamps) */
            propertyChangeType: "Create" | "Delete" | "Modify" | "Array" | "NoEffect";
            /** @description free-form: the property's value in what Azure holds now */
            before?: unknown;
            /** @description free-form: the property's value once the write is done */
            after?: unknown;
            children?: components["schemas"]["WhatIfPropertyChange"][];
        };
        /** @description a resource's change, in the shape of Azure's deployment what-if */
        WhatIfChange: {
            resourceId: string;
            /** @description as Azure's what-if: what the write does to the resource */
            changeType: "Create" | "Delete" | "Modify" | "NoChange";
            /** @description Modify and NoChange: each property that changes, against what Azure holds now */
            delta?: components["schemas"]["WhatIfPropertyChange"][];
        };
        /** @description a write (or wait) a run may make after the first, decided only then: no request is shown for it */
        LaterWrite: {
            kind: "update" | "manualUpgrade" | "deleteInstances" | "restartInstances" | "repairs" | "delete" | "nicPools" | "instancePools" | "create" | "autoscale" | "balancerPools" | "wait";
            /** @description what it writes, or waits for */
            what: string;
            /** @description what decides it: the read after the write before */
            decidedBy: string;
        };
        DryRunOperation: {
            operation: string;
            account: string;
            region: string;
            resourceGroup: string;
            /** @description the scale set the plan is for; a create's is the name it would choose now */
            serverGroupName: string;
            /** @description what a create found before planning, as its history would say it: the ancestor, the next name */
            preparation?: string[];
            /** @description the read the plan was made against */
            read: {
                etag?: string;
                provisioningState?: string;
                capacity?: number;
            };
            /** @description the write a run would send first; a later one (a rollout) is planned on the read after it */
            write?: {
                kind: "update" | "manualUpgrade" | "deleteInstances" | "restartInstances" | "repairs" | "delete" | "nicPools" | "instancePools" | "create" | "autoscale" | "balancerPools";
                /** @description as the task's history would say it */
                summary: string;
                /** @description the If-Match it would carry: the ETag of the read */
                ifMatch?: string;
                /** @description the ARM requests it sends, in order */
                requests: components["schemas"]["ArmRequest"][];
                /** @description what each request changes of what Azure holds now (none for an action on instances: an upgrade to the model, a restart) */
                changes: components["schemas"]["WhatIfChange"][];
            };
            /** @description with a write: what a run may write or wait for after it, and what decides each */
            later?: components["schemas"]["LaterWrite"][];
            /** @description nothing would be written: what the plan found */
            unchanged?: string;
            /** @description another write holds the scale set: a run would wait for it, then plan again */
            busy?: string;
            problem?: components["schemas"]["TaskException"];
        };
        /** @description ?dryRun=true: the plan, nothing written, no task stored */
        DryRun: {
            /**
             * @description which answer this is (a submission's: taskRef, task or dryRun)
             * @enum {string}
             */
            kind: "dryRun";
            /** @enum {boolean} */
            dryRun: true;
            note: string;
            /** @description cluster operations: what would happen to each server group of the cluster, and why */
            selection?: string[];
            operations: components["schemas"]["DryRunOperation"][];
            /** @description fields of the request the service does not read, as sent ("capcity", "[0].resizeServerGroup.capcity"); empty when it read them all. With Prefer: handling=strict they are a 400 instead */
            ignoredFields?: string[];
        };
        /** @description with ?wait=, the task (as GET /task/{id} answers); with ?dryRun=true, the plan. kind tells them apart (and from the 202's taskRef) */
        SubmissionAnswer: components["schemas"]["Task"] | components["schemas"]["DryRun"];
        RateLimits: {
            entries: {
                /** @description subscriptions/{sub}/resourceGroups/{rg}/virtualMachineScaleSets/{name}, or subscriptions/{sub} */
                scope: string;
                /** @description Azure's throttling policy, as named in x-ms-ratelimit-remaining-resource */
                policy: string;
                remaining: number;
                /** @description when Azure reported it */
                atMs: number;
            }[];
        };
        AccountChecks: {
            account: string;
            /** @description the worst of the checks */
            status: "OK" | "WARN" | "FAIL";
            /** Format: date-time */
            checkedAt: string;
            checks: {
                /** @description what is checked, e.g. `permissions on demo-rg` */
                check: string;
                status: "OK" | "WARN" | "FAIL";
                /** @description what was found */
                found: string;
                /** @description for WARN and FAIL: what to do, exactly */
                fix?: string;
            }[];
        };
        LatestChecks: {
            /** @description one per account checked since this replica started, that the caller may read */
            accounts: {
                account: string;
                status: "OK" | "WARN" | "FAIL";
                /** Format: date-time */
                checkedAt: string;
                /** @description the checks that FAILed */
                failing: string[];
                /** @description the checks that WARNed */
                warning: string[];
            }[];
        };
        ResourceGroupContents: {
            account: string;
            resourceGroup: string;
            /** @description false when Azure answered ResourceGroupNotFound */
            exists: boolean;
            /** @description every resource Azure lists in the group (Resources_ListByResourceGroup) */
            resources: {
                id: string;
                name: string;
                /** @description e.g. Microsoft.Compute/virtualMachineScaleSets */
                type: string;
                tags: {
                    [key: string]: string;
                };
            }[];
        };
        RegionVmSizes: {
            account: string;
            region: string;
            /** @description vCPUs free in the region (Total Regional vCPUs: limit − used) */
            regionalFreeVCPUs: number;
            /** @description every virtual-machine size Azure's resource SKUs list in the region, smallest first (vCPUs, memory, name) */
            sizes: {
                /** @description e.g. Standard_B1s */
                name: string;
                vCPUs: number;
                memoryGB: number;
                /** @description the quota family it counts against, e.g. standardBSFamily */
                family: string;
                /** @description why the subscription may not use it in the region (Azure's reasonCode, e.g. NotAvailableForSubscription); absent when it may */
                restriction?: string;
                /** @description vCPUs free for it: the smaller of its family's and the region's */
                freeVCPUs: number;
            }[];
        };
        Readiness: {
            status: "ready" | "not ready";
            store: {
                ok: boolean;
                problem?: string;
            };
            /** @description this replica's event loop was not held up longer than READY_TIMEOUT_MS since the last check */
            eventLoop: {
                ok: boolean;
                problem?: string;
            };
            /** @description per account: its ARM endpoint reachable with a token it accepts, as the last check in the background found (none before the first ends). Details: Azure is shared by every replica, so readiness does not depend on it */
            accounts: {
                [key: string]: {
                    ok: boolean;
                    problem?: string;
                };
            };
            /** @description tasks waiting to start, across replicas, and how long the oldest has waited (details: readiness does not depend on it) */
            backlog?: {
                queued: number;
                oldestAgeSeconds: number;
            };
            checkedAtMs: number;
        };
        ClouddriverHealth: {
            /** @description Azure (the VM's provisioning and power state) or LoadBalancer (backend pool membership) */
            type: string;
            /** @enum {string} */
            healthClass?: "platform";
            /** @description Clouddriver's HealthState */
            state: "Up" | "Down" | "OutOfService" | "Unknown" | "Starting" | "Failed";
            description?: string;
        };
        ClouddriverInstance: {
            /** @description the VM's name, <scale set>_<instance id> */
            name: string;
            instanceId: string;
            /** @description ms since the epoch: the VM's timeCreated */
            launchTime?: number;
            zone?: string;
            /** @enum {string} */
            cloudProvider: "azure";
            /** @enum {string} */
            providerType: "azure";
            provisioningState?: string;
            latestModelApplied?: boolean;
            /** @description Clouddriver's HealthState */
            healthState: "Up" | "Down" | "OutOfService" | "Unknown" | "Starting" | "Failed";
            health: components["schemas"]["ClouddriverHealth"][];
        };
        ClouddriverMoniker: {
            app: string;
            cluster: string;
            stack?: string;
            detail?: string;
            sequence?: number;
        };
        InstanceCounts: {
            total: number;
            up: number;
            down: number;
            unknown: number;
            starting: number;
            outOfService: number;
        };
        /** @description Clouddriver's server group, for an Azure scale set */
        ClouddriverServerGroup: {
            name: string;
            /** @enum {string} */
            type: "azure";
            /** @enum {string} */
            cloudProvider: "azure";
            account: string;
            region: string;
            resourceGroup: string;
            cluster: string;
            moniker: components["schemas"]["ClouddriverMoniker"];
            /** @description ms since the epoch: Azure's timeCreated of the scale set */
            createdTime?: number;
            capacity: components["schemas"]["Capacity"];
            /** @description as disableServerGroup/enableServerGroup left it, or parked in clouddriver-azure's parking pools */
            disabled: boolean;
            /** @description the VMs as Azure lists them */
            instances: components["schemas"]["ClouddriverInstance"][];
            instanceCounts: components["schemas"]["InstanceCounts"];
            zones: string[];
            /** @description backend pool ids on the scale set's model */
            loadBalancers: string[];
            securityGroups: string[];
            /** @description always empty: a scale set has no launch configuration; here because Clouddriver's answer has it */
            launchConfig: Record<string, never>;
            tags: {
                [key: string]: string;
            };
            provisioningState?: string;
        };
        /** @description without region: the server groups of that name (one per region); with region: that one */
        ClouddriverServerGroupOrList: components["schemas"]["ClouddriverServerGroup"][] | components["schemas"]["ClouddriverServerGroup"];
        ClouddriverCluster: {
            name: string;
            /** @enum {string} */
            type: "azure";
            accountName: string;
            moniker?: components["schemas"]["ClouddriverMoniker"];
            serverGroups: components["schemas"]["ClouddriverServerGroup"][];
            loadBalancers: string[];
        };
        ClouddriverApplication: {
            name: string;
            attributes: {
                name: string;
                cloudProviders: string;
            };
            /** @description cluster summaries by account */
            clusters: {
                [key: string]: {
                    name: string;
                    /** @enum {string} */
                    provider: "azure";
                    serverGroups: string[];
                    loadBalancers: string[];
                }[];
            };
        };
        /** @description which server group to refresh */
        ForceCacheRefresh: {
            /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
            account: string;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName?: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            asgName?: string;
            zone?: string | null;
        };
        ForceCacheRefreshResult: {
            /** @description account/region/resourceGroup/name of each server group whose cached reads were dropped */
            refreshed: string[];
        };
        /** @description pending force-cache refreshes: always empty, since a refresh is done when it is asked for */
        PendingCacheRefreshes: Record<string, never>[];
        ClouddriverInstanceMatch: {
            /** @enum {string} */
            type: "instances";
            /** @enum {string} */
            provider: "azure";
            account: string;
            region: string;
            application: string;
            cluster: string;
            /** @description the scale set the VM is in */
            serverGroup: string;
            /** @description the VM's name: Clouddriver's instance id */
            name: string;
            /** @description the VM's name, as the query named it */
            instanceId: string;
        };
        ClouddriverSearchResultSet: {
            /** @enum {string} */
            platform: "azure";
            query: string;
            /** @description 0 when no VM of that name is listed: Orca takes it as terminated */
            totalMatches: number;
            pageNumber: number;
            pageSize: number;
            results: components["schemas"]["ClouddriverInstanceMatch"][];
        };
        /** @description one page, as SearchController answers for one provider */
        ClouddriverSearchResults: components["schemas"]["ClouddriverSearchResultSet"][];
        ScaleDownClusterDescription: {
            /** @description the account (Orca's name for it) */
            credentials?: string | null;
            account?: string | null;
            /** @description app, app-stack or app-stack-detail (Frigga) */
            cluster: string;
            regions?: string[] | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region?: string | null;
            /** @description keep the largest rather than the newest */
            preferLargerOverNewer?: boolean | null;
            /** @description server groups left at full size (default 1) */
            remainingFullSizeServerGroups?: number | null;
            /** @description active server groups may be scaled down too (default false) */
            allowScaleDownActive?: boolean | null;
        } & {
            [key: string]: unknown;
        };
        DisableClusterDescription: {
            /** @description the account (Orca's name for it) */
            credentials?: string | null;
            account?: string | null;
            /** @description app, app-stack or app-stack-detail (Frigga) */
            cluster: string;
            regions?: string[] | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region?: string | null;
            /** @description keep the largest rather than the newest */
            preferLargerOverNewer?: boolean | null;
            /** @description enabled server groups left enabled (default 1) */
            remainingEnabledServerGroups?: number | null;
        } & {
            [key: string]: unknown;
        };
        /** @description what a change acts on, one per operation */
        AuditTarget: {
            /** @description the operation (resizeServerGroup), or a forwarded write's path */
            operation: string;
            account?: string;
            region?: string;
            serverGroup?: string;
        };
        /** @description who changed what, when, from where, and the outcome */
        AuditEntry: {
            id: string;
            action: "submit" | "cancel" | "resume" | "forward";
            /** @description accepted: the change was made (a forward: handed to Clouddriver); refused: answered `status` */
            decision: "accepted" | "refused";
            /** @description a refusal's HTTP status (403, 409) */
            status?: number;
            /** @description why it was refused */
            reason?: string;
            /** @description when it was accepted or refused, epoch ms */
            timeMs: number;
            /** @description who, and how that was proven (as TaskActor) */
            actor: {
                name: string;
                via: string;
                subject?: string;
                issuer?: string;
                application?: string;
                spinnakerUser?: string;
            };
            /** @description the caller's address (X-Forwarded-For's only through a proxy TRUSTED_PROXIES names) */
            remoteAddress: string;
            /** @description the connection's address, when a trusted proxy's */
            peerAddress?: string;
            targets: components["schemas"]["AuditTarget"][];
            clientRequestId?: string;
            taskId?: string;
            /** @description method and path, for forwarded writes and refusals */
            request?: string;
            /** @description how it ended, once known: the task's end state (succeeded, failed, canceled); a forwarded write's Clouddriver answer (clouddriver 200) */
            outcome?: string;
            outcomeAtMs?: number;
        };
        AuditPage: {
            entries: components["schemas"]["AuditEntry"][];
            /** @description pass as cursor for the next page; absent on the last page */
            nextCursor?: string;
        };
        ResizeServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            capacity?: components["schemas"]["Capacity"] | null;
            /** @description the desired size; min and max widen to include it */
            targetSize?: number | null;
        } & {
            [key: string]: unknown;
        };
        DisableServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description Orca's rolling red/black share to take out of traffic: below 100, that share of a Flexible set's VMs leaves the backend pools (each VM's NIC) and the group stays enabled, the VMs named in the result's instanceIdsToDisable; a Uniform set's under upgrade policy Manual: that share of instances, each its own network configuration without the pools (Automatic or Rolling: refused, PartialDisableUniform). 100, or left out: the whole group */
            desiredPercentage?: number | null;
        } & {
            [key: string]: unknown;
        };
        EnableServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
        } & {
            [key: string]: unknown;
        };
        ScaleDownDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            capacity?: components["schemas"]["Capacity"] | null;
            /** @description scale down by deleting exactly these instances (as terminateInstances, without replacing them) */
            instanceIds?: string[] | null;
        } & {
            [key: string]: unknown;
        };
        TerminateInstancesDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description the scale set; may be left out when instanceIds are VM names ({scale set}_{id}, as Deck's one-instance actions send them): the scale set is then read from the name and confirmed on Azure before the task is created */
            serverGroupName?: string | null;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description instances to terminate */
            instanceIds: string[];
        } & {
            [key: string]: unknown;
        };
        TerminateInstanceAndDecrementDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description the instance to delete: its id as Azure reports it, or its VM's name (Clouddriver's instance id, which Deck sends; a Flexible set's instance id is its VM's name) */
            instance: string;
            /** @description Deck's copy of serverGroupName; ignored */
            asgName?: string | null;
            /** @description lower the recorded min with the size when it would be below it (Deck sends true) */
            adjustMinIfNecessary?: boolean | null;
            /** @description set the recorded max to the new size */
            setMaxToNewDesired?: boolean | null;
        } & {
            [key: string]: unknown;
        };
        RebootInstancesDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description the scale set; may be left out when instanceIds are VM names ({scale set}_{id}, as Deck's one-instance actions send them): the scale set is then read from the name and confirmed on Azure before the task is created */
            serverGroupName?: string | null;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description instances to restart */
            instanceIds: string[];
        } & {
            [key: string]: unknown;
        };
        DestroyServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * @description clouddriver-azure's AzureServerGroupDescription, for a scale set, as Deck and Orca send it
         * @example {
         *       "credentials": "demo",
         *       "region": "eastus",
         *       "application": "web",
         *       "stack": "prod",
         *       "image": {
         *         "publisher": "Canonical",
         *         "offer": "ubuntu-24_04-lts",
         *         "sku": "server",
         *         "version": "latest"
         *       },
         *       "sku": {
         *         "name": "Standard_D2s_v3",
         *         "tier": "Standard"
         *       },
         *       "capacity": {
         *         "min": 2,
         *         "max": 6,
         *         "desired": 3
         *       },
         *       "upgradePolicy": "Manual",
         *       "subnetId": "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default",
         *       "loadBalancerBackendPoolId": "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/web-lb/backendAddressPools/web-pool",
         *       "healthSettings": {
         *         "protocol": "http",
         *         "port": 8080,
         *         "requestPath": "/health"
         *       },
         *       "osConfig": {
         *         "adminUserName": "azureuser",
         *         "sshPublicKeys": [
         *           "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… deploy@example"
         *         ]
         *       }
         *     }
         */
        CreateServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description the application: letters, digits, '.' and '_' */
            application: string;
            /** @description the stack: letters, digits, '.' and '_' */
            stack?: string | null;
            /** @description the detail: letters, digits, '.', '_' and '-' */
            detail?: string | null;
            /** @description clouddriver-azure's AzureNamedImage: marketplace (publisher, offer, sku, version) or custom (isCustom, uri); "" is absent */
            image?: ({
                /** @description a custom image: uri is its resource id ('true' as Deck sends it) */
                isCustom?: boolean | "true" | "false" | null;
                uri?: "" | string | null;
                publisher?: string | null;
                offer?: string | null;
                sku?: string | null;
                version?: string | null;
                imageName?: string | null;
                ostype?: "" | "linux" | "windows" | "Linux" | "Windows" | null;
            } & {
                [key: string]: unknown;
            }) | null;
            sku?: {
                /** @description a VM size, e.g. Standard_D2s_v3 */
                name?: string | null;
                tier?: string | null;
                capacity?: number | null;
            } | null;
            /** @description instance counts; desired defaults to sku.capacity, min and max to desired */
            capacity?: {
                min?: number | null;
                max?: number | null;
                desired?: number | null;
            } | null;
            /** @description Azure's upgrade mode (default Manual; a clone keeps its source's); Rolling needs health to watch */
            upgradePolicy?: "Automatic" | "Manual" | "Rolling" | null;
            /** @description Azure's upgradePolicy.rollingUpgradePolicy; with upgradePolicy Rolling */
            rollingUpgradePolicy?: {
                /** @description VMs upgraded at once, % of the set (Azure's default 20) */
                maxBatchInstancePercent?: number | null;
                /** @description unhealthy VMs, % of the set, at which the upgrade stops (default 20) */
                maxUnhealthyInstancePercent?: number | null;
                /** @description upgraded VMs found unhealthy, %, at which the upgrade stops (default 20) */
                maxUnhealthyUpgradedInstancePercent?: number | null;
                /** @description ISO 8601, e.g. PT30S (default PT0S) */
                pauseTimeBetweenBatches?: string | null;
                prioritizeUnhealthyInstances?: boolean | null;
                /** @description new VMs first, then the old ones deleted */
                maxSurge?: boolean | null;
                rollbackFailedInstancesOnPolicyBreach?: boolean | null;
            } | null;
            /** @description Azure's automaticRepairsPolicy; needs healthSettings */
            automaticRepairsPolicy?: {
                enabled: boolean;
                /** @description ISO 8601, PT10M to PT90M (Azure's default PT30M) */
                gracePeriod?: string | null;
                /** @description Azure's default Replace */
                repairAction?: "Replace" | "Restart" | "Reimage" | null;
            } | null;
            /** @description Azure's scaleInPolicy */
            scaleInPolicy?: {
                /** @description which VMs a scale-in removes (Azure honours one rule) */
                rules?: ("Default" | "OldestVM" | "NewestVM")[] | null;
                forceDeletion?: boolean | null;
            } | null;
            /** @description the VMs' priority (Azure's default Regular); Spot VMs can be evicted */
            priority?: "Regular" | "Spot" | "Low" | null;
            /** @description what an eviction does to a Spot VM (Azure's default Deallocate) */
            evictionPolicy?: "Deallocate" | "Delete" | null;
            /** @description a Spot VM's highest price per hour in US dollars; -1: up to the on-demand price (the default) */
            maxPrice?: number | null;
            /** @description Azure's orchestration mode of the new scale set: Uniform (the REST API's default) unless given; a clone keeps its source's unless given */
            orchestrationMode?: "Uniform" | "Flexible" | null;
            /** @description an Azure resource id: /subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet} */
            subnetId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/networkSecurityGroups/{nsg} */
            securityGroupId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/loadBalancers/{lb}/backendAddressPools/{pool} */
            loadBalancerBackendPoolId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/applicationGateways/{agw}/backendAddressPools/{pool} */
            appGatewayBapId?: string | null;
            zones?: string[] | null;
            /** @description tags for the scale set (Azure: up to 50 names of ≤512 characters and values of ≤256; names starting vmss-ops. are ours) */
            instanceTags?: {
                [key: string]: string;
            } | null;
            /** @description a script to run; an empty commandToExecute is none (Deck sends one always) */
            customScriptsSettings?: {
                fileUris?: string[] | null;
                commandToExecute?: string | null;
            } | null;
            healthSettings?: {
                protocol: "http" | "https" | "tcp";
                port: number | string;
                requestPath?: string | null;
            } | null;
            dataDisks?: ({
                lun: number;
                diskSizeGB: number;
                caching?: "None" | "ReadOnly" | "ReadWrite" | null;
                storageAccountType?: "Standard_LRS" | "Premium_LRS" | "StandardSSD_LRS" | "Premium_ZRS" | "StandardSSD_ZRS" | null;
            } & {
                [key: string]: unknown;
            })[] | null;
            /** @description OS admin settings; secrets only by reference */
            osConfig?: {
                adminUserName?: string | null;
                /** @description refused, whatever its value: a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv */
                adminPassword?: never;
                /** @description the name of an environment variable of this service that holds the admin password; read when the PUT is sent, never stored */
                adminPasswordEnv?: string | null;
                sshPublicKeys?: string[] | null;
                computerNamePrefix?: string | null;
                /** @description cloud-init or script text; sent base64-encoded */
                customData?: string | null;
            } | null;
            enableIpForwarding?: boolean | null;
            /** @description start out of traffic (default false): the backend pools are recorded, and enableServerGroup puts them on */
            disabled?: boolean | null;
            /** @description how long the new instances may take to become healthy behind the load balancer before the create fails (default 600; the retry deadline bounds it too) */
            healthyTimeoutSeconds?: number | null;
            /** @description the virtual network's name */
            vnet?: string | null;
            /** @description the subnet's name */
            subnet?: string | null;
            /** @description the virtual network's resource group (default: the server group's) */
            vnetResourceGroup?: string | null;
            /** @description the network security group's name */
            securityGroupName?: string | null;
            /** @description the load balancer (or application gateway)'s name */
            loadBalancerName?: string | null;
            loadBalancerType?: "Azure Load Balancer" | "Azure Application Gateway" | null;
            /** @description the application gateway's name */
            appGatewayName?: string | null;
            /** @description take the capacity of source (the cluster's current group) */
            useSourceCapacity?: boolean | null;
            /** @description copy the Azure Monitor autoscale setting of the source (a clone's, or a deploy's current group) to the new group, the capacity asked for on its profile in force (default true, as Clouddriver's AWS deploy: BasicAmazonDeployDescription.groovy l.76-82) */
            copySourceScalingPoliciesAndActions?: boolean | null;
            /** @description give the scale set a system-assigned identity (clouddriver-azure's field; default false, a clone keeps its source's) */
            useSystemManagedIdentity?: boolean | "true" | "false" | null;
            /** @description user-assigned identities: a comma-separated string (as Deck sends it) or a list, each a name in the server group's resource group or a resource id; each must exist. "" is none; a clone keeps its source's unless given */
            userAssignedIdentities?: string | string[] | null;
            /** @description Deck's switch: false means no zones, whatever `zones` holds */
            zonesEnabled?: boolean | null;
            /** @description the cluster's current group, as Orca names it; its model is not copied (its capacity with useSourceCapacity, its autoscale setting unless copySourceScalingPoliciesAndActions is false); {} is none */
            source?: ({
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account?: string | null;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region?: string | null;
                /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
                serverGroupName?: string | null;
                /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
                asgName?: string | null;
                /** @description an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.' */
                resourceGroup?: string | null;
                useSourceCapacity?: boolean | null;
            } & {
                [key: string]: unknown;
            }) | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * @description Orca's cloneServerGroup: the source's model, with these fields as overrides
         * @example {
         *       "credentials": "demo",
         *       "region": "eastus",
         *       "source": {
         *         "account": "demo",
         *         "region": "eastus",
         *         "serverGroupName": "web-prod-v001"
         *       },
         *       "image": {
         *         "publisher": "Canonical",
         *         "offer": "ubuntu-24_04-lts",
         *         "sku": "server",
         *         "version": "24.04.202611"
         *       }
         *     }
         */
        CloneServerGroupDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description the application: letters, digits, '.' and '_' */
            application?: string | null;
            /** @description the stack: letters, digits, '.' and '_' */
            stack?: string | null;
            /** @description the detail: letters, digits, '.', '_' and '-' */
            detail?: string | null;
            /** @description clouddriver-azure's AzureNamedImage: marketplace (publisher, offer, sku, version) or custom (isCustom, uri); "" is absent */
            image?: ({
                /** @description a custom image: uri is its resource id ('true' as Deck sends it) */
                isCustom?: boolean | "true" | "false" | null;
                uri?: "" | string | null;
                publisher?: string | null;
                offer?: string | null;
                sku?: string | null;
                version?: string | null;
                imageName?: string | null;
                ostype?: "" | "linux" | "windows" | "Linux" | "Windows" | null;
            } & {
                [key: string]: unknown;
            }) | null;
            sku?: {
                /** @description a VM size, e.g. Standard_D2s_v3 */
                name?: string | null;
                tier?: string | null;
                capacity?: number | null;
            } | null;
            /** @description instance counts; desired defaults to sku.capacity, min and max to desired */
            capacity?: {
                min?: number | null;
                max?: number | null;
                desired?: number | null;
            } | null;
            /** @description Azure's upgrade mode (default Manual; a clone keeps its source's); Rolling needs health to watch */
            upgradePolicy?: "Automatic" | "Manual" | "Rolling" | null;
            /** @description Azure's upgradePolicy.rollingUpgradePolicy; with upgradePolicy Rolling */
            rollingUpgradePolicy?: {
                /** @description VMs upgraded at once, % of the set (Azure's default 20) */
                maxBatchInstancePercent?: number | null;
                /** @description unhealthy VMs, % of the set, at which the upgrade stops (default 20) */
                maxUnhealthyInstancePercent?: number | null;
                /** @description upgraded VMs found unhealthy, %, at which the upgrade stops (default 20) */
                maxUnhealthyUpgradedInstancePercent?: number | null;
                /** @description ISO 8601, e.g. PT30S (default PT0S) */
                pauseTimeBetweenBatches?: string | null;
                prioritizeUnhealthyInstances?: boolean | null;
                /** @description new VMs first, then the old ones deleted */
                maxSurge?: boolean | null;
                rollbackFailedInstancesOnPolicyBreach?: boolean | null;
            } | null;
            /** @description Azure's automaticRepairsPolicy; needs healthSettings */
            automaticRepairsPolicy?: {
                enabled: boolean;
                /** @description ISO 8601, PT10M to PT90M (Azure's default PT30M) */
                gracePeriod?: string | null;
                /** @description Azure's default Replace */
                repairAction?: "Replace" | "Restart" | "Reimage" | null;
            } | null;
            /** @description Azure's scaleInPolicy */
            scaleInPolicy?: {
                /** @description which VMs a scale-in removes (Azure honours one rule) */
                rules?: ("Default" | "OldestVM" | "NewestVM")[] | null;
                forceDeletion?: boolean | null;
            } | null;
            /** @description the VMs' priority (Azure's default Regular); Spot VMs can be evicted */
            priority?: "Regular" | "Spot" | "Low" | null;
            /** @description what an eviction does to a Spot VM (Azure's default Deallocate) */
            evictionPolicy?: "Deallocate" | "Delete" | null;
            /** @description a Spot VM's highest price per hour in US dollars; -1: up to the on-demand price (the default) */
            maxPrice?: number | null;
            /** @description Azure's orchestration mode of the new scale set: Uniform (the REST API's default) unless given; a clone keeps its source's unless given */
            orchestrationMode?: "Uniform" | "Flexible" | null;
            /** @description an Azure resource id: /subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet} */
            subnetId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/networkSecurityGroups/{nsg} */
            securityGroupId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/loadBalancers/{lb}/backendAddressPools/{pool} */
            loadBalancerBackendPoolId?: string | null;
            /** @description an Azure resource id: …/Microsoft.Network/applicationGateways/{agw}/backendAddressPools/{pool} */
            appGatewayBapId?: string | null;
            zones?: string[] | null;
            /** @description tags for the scale set (Azure: up to 50 names of ≤512 characters and values of ≤256; names starting vmss-ops. are ours) */
            instanceTags?: {
                [key: string]: string;
            } | null;
            /** @description a script to run; an empty commandToExecute is none (Deck sends one always) */
            customScriptsSettings?: {
                fileUris?: string[] | null;
                commandToExecute?: string | null;
            } | null;
            healthSettings?: {
                protocol: "http" | "https" | "tcp";
                port: number | string;
                requestPath?: string | null;
            } | null;
            dataDisks?: ({
                lun: number;
                diskSizeGB: number;
                caching?: "None" | "ReadOnly" | "ReadWrite" | null;
                storageAccountType?: "Standard_LRS" | "Premium_LRS" | "StandardSSD_LRS" | "Premium_ZRS" | "StandardSSD_ZRS" | null;
            } & {
                [key: string]: unknown;
            })[] | null;
            /** @description OS admin settings; secrets only by reference */
            osConfig?: {
                adminUserName?: string | null;
                /** @description refused, whatever its value: a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv */
                adminPassword?: never;
                /** @description the name of an environment variable of this service that holds the admin password; read when the PUT is sent, never stored */
                adminPasswordEnv?: string | null;
                sshPublicKeys?: string[] | null;
                computerNamePrefix?: string | null;
                /** @description cloud-init or script text; sent base64-encoded */
                customData?: string | null;
            } | null;
            enableIpForwarding?: boolean | null;
            /** @description start out of traffic (default false): the backend pools are recorded, and enableServerGroup puts them on */
            disabled?: boolean | null;
            /** @description how long the new instances may take to become healthy behind the load balancer before the create fails (default 600; the retry deadline bounds it too) */
            healthyTimeoutSeconds?: number | null;
            /** @description the virtual network's name */
            vnet?: string | null;
            /** @description the subnet's name */
            subnet?: string | null;
            /** @description the virtual network's resource group (default: the server group's) */
            vnetResourceGroup?: string | null;
            /** @description the network security group's name */
            securityGroupName?: string | null;
            /** @description the load balancer (or application gateway)'s name */
            loadBalancerName?: string | null;
            loadBalancerType?: "Azure Load Balancer" | "Azure Application Gateway" | null;
            /** @description the application gateway's name */
            appGatewayName?: string | null;
            /** @description take the capacity of source (the cluster's current group) */
            useSourceCapacity?: boolean | null;
            /** @description copy the Azure Monitor autoscale setting of the source (a clone's, or a deploy's current group) to the new group, the capacity asked for on its profile in force (default true, as Clouddriver's AWS deploy: BasicAmazonDeployDescription.groovy l.76-82) */
            copySourceScalingPoliciesAndActions?: boolean | null;
            /** @description give the scale set a system-assigned identity (clouddriver-azure's field; default false, a clone keeps its source's) */
            useSystemManagedIdentity?: boolean | "true" | "false" | null;
            /** @description user-assigned identities: a comma-separated string (as Deck sends it) or a list, each a name in the server group's resource group or a resource id; each must exist. "" is none; a clone keeps its source's unless given */
            userAssignedIdentities?: string | string[] | null;
            /** @description Deck's switch: false means no zones, whatever `zones` holds */
            zonesEnabled?: boolean | null;
            /** @description the server group to copy (Orca's clone stage `source`) */
            source: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region: string;
                /** @description the scale set to copy; or asgName */
                serverGroupName?: string | null;
                /** @description Orca's name of the source (SourceResolver.groovy l.122, DetermineSourceServerGroupTask.groovy l.71): the same as serverGroupName, which may be left out */
                asgName?: string | null;
                /** @description an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.' */
                resourceGroup?: string | null;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "credentials": "demo",
         *       "region": "eastus",
         *       "serverGroupName": "web-prod-v001",
         *       "image": {
         *         "publisher": "Canonical",
         *         "offer": "ubuntu-24_04-lts",
         *         "sku": "server",
         *         "version": "latest"
         *       },
         *       "maxSurge": 2,
         *       "maxUnavailable": 0,
         *       "deletePolicy": "Oldest"
         *     }
         */
        RollingUpgradeDescription: {
            /** @description the account name (Clouddriver's field) */
            credentials?: string | null;
            /** @description the account name; an alias of credentials */
            account?: string | null;
            /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
            region: string;
            /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
            serverGroupName: string;
            /** @description Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no Spinnaker naming convention. */
            resourceGroup?: string | null;
            /** @description the image new instances boot from */
            image?: {
                publisher: string;
                offer: string;
                sku: string;
                /** @description default latest */
                version?: string | null;
            } | {
                id: string;
            } | null;
            /** @description base64 custom data for new instances */
            customData?: string | null;
            sku?: {
                /** @description a VM size such as Standard_D4s_v3 */
                name: string;
            } | null;
            /** @description tags merged into the scale set's */
            tags?: {
                [key: string]: string;
            } | null;
            /** @description instances above the desired count at most (rounded up): a whole number of instances, or a percentage of the desired count such as "25%" (default 1) */
            maxSurge?: number | string | null;
            /** @description ready instances below the desired count at most (rounded down): a whole number of instances, or a percentage of the desired count such as "25%" (default 0) */
            maxUnavailable?: number | string | null;
            /** @description which out-of-date instances go first (default Oldest) */
            deletePolicy?: "Oldest" | "Newest" | null;
        } & {
            [key: string]: unknown;
        };
        /** @description exactly one operation: { "<operationName>": <its description> } */
        OperationEnvelope: {
            resizeServerGroup?: components["schemas"]["ResizeServerGroupDescription"];
            disableServerGroup?: components["schemas"]["DisableServerGroupDescription"];
            enableServerGroup?: components["schemas"]["EnableServerGroupDescription"];
            scaleDown?: components["schemas"]["ScaleDownDescription"];
            terminateInstances?: components["schemas"]["TerminateInstancesDescription"];
            terminateInstanceAndDecrementServerGroup?: components["schemas"]["TerminateInstanceAndDecrementDescription"];
            rebootInstances?: components["schemas"]["RebootInstancesDescription"];
            destroyServerGroup?: components["schemas"]["DestroyServerGroupDescription"];
            createServerGroup?: components["schemas"]["CreateServerGroupDescription"];
            cloneServerGroup?: components["schemas"]["CloneServerGroupDescription"];
            rollingUpgrade?: components["schemas"]["RollingUpgradeDescription"];
        };
        UiTask: {
            id: string;
            state: components["schemas"]["TaskState"];
            outcome: "queued" | "running" | "retrying" | "succeeded" | "failed" | "canceled";
            operations: string[];
            /** @description submitted by …, canceled by …, resumed by … (the task's audit entries) */
            who?: string;
            targets: {
                operation: string;
                account: string;
                region: string;
                resourceGroup?: string;
                serverGroupName: string;
            }[];
            operationIndex: number;
            phase: string;
            /** @description the last history line */
            status: string;
            /** @description the last history line that says something (not the closing 'Orchestration completed.') */
            summary: string;
            /** @description the attempt running now (or the last one), as the history counts it; 0 before the first */
            attempt: number;
            /** @description the attempts an operation may make (RETRY_MAX_ATTEMPTS), as the history's 'attempt k/n' */
            attempts: number;
            step?: {
                number: number;
                of: number;
                unit: "operation" | "batch";
                name?: string;
            };
            waiting?: {
                for: string;
                sinceMs: number;
                untilMs?: number;
            };
            /** @description from creation to the end, or to now */
            elapsedMs: number;
            timeline: {
                kind: "queued" | "attempt" | "write" | "wait" | "backoff";
                fromMs: number;
                /** @description absent while it goes on */
                toMs?: number;
                attempt?: number;
                ended?: "retry" | "failed";
                label: string;
            }[];
            /** @description retries this replica saw, newest last */
            retries: {
                attempt: number;
                operation: string;
                status: string;
                code?: string;
                atMs: number;
            }[];
            actions: {
                resume: boolean;
                cancel: boolean;
                why?: string;
            };
            armCalls: number;
            leaseOwner?: string;
            cancelRequestedAtMs?: number;
            createdAtMs: number;
            updatedAtMs: number;
            finishedAtMs?: number;
            failure?: {
                operation: string;
                code: string;
                message: string;
                retryable: boolean;
            };
            history?: {
                phase: string;
                status: string;
                timeMs: number;
            }[];
        };
        UiTaskList: {
            inFlight: components["schemas"]["UiTask"][];
            recent: components["schemas"]["UiTask"][];
            /** @description pass as cursor for older recent tasks */
            nextCursor?: string;
            /** @description the service's clock, for times shown relative to now */
            nowMs: number;
        };
        UiInventory: {
            accounts: {
                name: string;
                readAtMs?: number;
                /** @description why this account could not be listed */
                problem?: string;
                clusters: {
                    name: string;
                    serverGroups: {
                        name: string;
                        region: string;
                        resourceGroup: string;
                        capacity: {
                            min: number;
                            desired: number;
                            max: number;
                        };
                        disabled: boolean;
                        /** @description VMs Azure lists */
                        instances: number;
                        /** @description VMs Up: running and in the load balancer's pool (or running, without one) */
                        inTraffic: number;
                        provisioningState?: string;
                        lastTask?: {
                            id: string;
                            state: components["schemas"]["TaskState"];
                            operation: string;
                            atMs: number;
                        };
                    }[];
                }[];
            }[];
        };
        StageFeature: {
            name: string;
            enabled: boolean;
        };
    };
    responses: never;
    parameters: {
        /**
         * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
         * @example handling=strict
         */
        Prefer: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service is up */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getStageFeatures: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per operation; upsertEntityTags is not among them */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StageFeature"][];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resizeServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResizeServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    disableServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DisableServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    enableServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EnableServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    scaleDown: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScaleDownDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    terminateInstances: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TerminateInstancesDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    terminateInstanceAndDecrementServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TerminateInstanceAndDecrementDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rebootInstances: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RebootInstancesDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    destroyServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DestroyServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    cloneServerGroup: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CloneServerGroupDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rollingUpgrade: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RollingUpgradeDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    unknownOperation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                operation: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments). ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnknownOperation: an operation this service does not serve; knownOperations lists those it does */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    submitOperations: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description read and plan against the state just read, answer 200 with the plan; nothing is written and no task is stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperationEnvelope"][];
            };
        };
        responses: {
            /** @description With ?wait=: the task, once it has ended or the time ran out (as GET /task/{id} answers). With ?dryRun=true: the plan */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments). InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getTask: {
        parameters: {
            query?: {
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task (with ?wait=, once it has ended or the time ran out) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resumeTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task is queued or running again; poll it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments). ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskNotRetryable: POST /task/{id}:resume of a task that succeeded, or failed in a way running it again cannot change */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    cancelTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task: canceled, or still queued or running until its next safe point, where it ends canceled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskFinished: POST /task/{id}/cancel of a task that has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listTasks: {
        parameters: {
            query?: {
                limit?: number;
                state?: components["schemas"]["TaskState"];
                /** @description tasks that include this operation, e.g. scaleDown */
                operation?: string;
                /** @description tasks on this server group (serverGroupName) */
                serverGroup?: string;
                /** @description nextCursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tasks, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskList"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidCursor: GET /task?cursor= that this service did not give */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
                /** @description entries at or after this time, epoch ms */
                sinceMs?: number;
                /** @description entries before this time, epoch ms */
                untilMs?: number;
                /** @description the actor's name, exactly */
                principal?: string;
                /** @description any case */
                account?: string;
                serverGroup?: string;
                /** @description an operation (resizeServerGroup) or an action (submit, cancel, resume, forward) */
                operation?: string;
                taskId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Entries, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidCursor: GET /task?cursor= that this service did not give */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getServerGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region: string;
                /** @description an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.' */
                resourceGroup: string;
                /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scale set as Azure reports it now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServerGroup"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetApplication: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Spinnaker application name (Frigga: letters, digits, '.', '_') */
                app: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverApplication"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetCluster: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Spinnaker application name (Frigga: letters, digits, '.', '_') */
                app: string;
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description a Spinnaker cluster name: app, app-stack or app-stack-detail */
                cluster: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the cluster */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverCluster"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetServerGroupFromCluster: {
        parameters: {
            query?: {
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region?: string;
                expand?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description a Spinnaker application name (Frigga: letters, digits, '.', '_') */
                app: string;
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description a Spinnaker cluster name: app, app-stack or app-stack-detail */
                cluster: string;
                /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
                serverGroup: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description without region: the server groups of that name (one per region); with region: that one */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverServerGroupOrList"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetTargetServerGroup: {
        parameters: {
            query?: {
                onlyEnabled?: "true" | "false";
                validateOldest?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description a Spinnaker application name (Frigga: letters, digits, '.', '_') */
                app: string;
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description a Spinnaker cluster name: app, app-stack or app-stack-detail */
                cluster: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                scope: string;
                /** @description current_asg_dynamic, ancestor_asg_dynamic, oldest_asg_dynamic, largest_asg_dynamic (or newest, previous, ancestor, fail, …) */
                target: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the target server group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverServerGroup"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetServerGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region: string;
                /** @description an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-' */
                serverGroup: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the server group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverServerGroup"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverSearch: {
        parameters: {
            query: {
                /** @description the instance id: the VM's name */
                q: string;
                /** @description instances (others find nothing here) */
                type: string;
                platform?: string;
                /** @description as Orca sends it: azure */
                cloudProvider?: string;
                pageSize?: number;
                page?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page; totalMatches 0 and no results when no VM of that name is listed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverSearchResults"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverGetInstance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region: string;
                /** @description Clouddriver's instance id for Azure: the VM's name, {scale set}_{suffix} (e.g. web-prod-v001_3) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the instance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClouddriverInstance"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change. ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverPendingCacheRefreshes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description always empty */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingCacheRefreshes"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    clouddriverForceCacheRefresh: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForceCacheRefresh"];
            };
        };
        responses: {
            /** @description the server groups whose cached reads were dropped */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForceCacheRefreshResult"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidPath: a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverUnavailable: a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClouddriverTimeout: a request forwarded to Clouddriver got no answer in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    scaleDownCluster: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters: the same request again (an orchestrator retrying) is the same task */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description the selection and each server group's plan; nothing written, no task stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScaleDownClusterDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task once it ended or the time ran out. With ?dryRun=true: the selection and the plans */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    disableCluster: {
        parameters: {
            query?: {
                /** @description printable ASCII without spaces, up to 128 characters: the same request again (an orchestrator retrying) is the same task */
                clientRequestId?: string;
                /** @description hold the answer until the task has ended or this many seconds (at most 60) have passed, then answer with the task as GET /task/{id} does */
                wait?: number;
                /** @description the selection and each server group's plan; nothing written, no task stored */
                dryRun?: boolean;
            };
            header?: {
                /**
                 * @description RFC 7240. `handling=strict`: a field of the body that the service would not read is a 400 ValidationError naming it (and saying what was probably meant), instead of a name in the answer's ignoredFields. Orca's and Deck's own fields are known and accepted either way. Other preferences are ignored.
                 * @example handling=strict
                 */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DisableClusterDescription"];
            };
        };
        responses: {
            /** @description With ?wait=: the task once it ended or the time ran out. With ?dryRun=true: the selection and the plans */
            200: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAnswer"];
                };
            };
            /** @description The task was created (or, for a repeated clientRequestId, found); ignoredFields names what the service did not read */
            202: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskRef"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit). InvalidJson: the body is not JSON. EmptyBody: a body was expected and is empty. ForbiddenKey: the body has a __proto__ or constructor.prototype key. BodyTooDeep: the body nests deeper than BODY_MAX_DEPTH. InvalidContentLength: the Content-Length header does not match the body (as fastify says it) */
            400: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ClientRequestIdReused: a clientRequestId sent again with another body */
            409: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description PayloadTooLarge: a body over BODY_LIMIT_BYTES */
            413: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description UnsupportedMediaType: a body that is not application/json, or not UTF-8 */
            415: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description BacklogFull: TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created. TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TaskOutcomeUnknown: a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once. AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    /** @description RFC 7240 §3: `handling=strict` when the request asked for strict handling (on every answer to it) */
                    "Preference-Applied"?: "handling=strict";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    uiListTasks: {
        parameters: {
            query?: {
                /** @description part of a server group's name */
                serverGroup?: string;
                /** @description part of an account's name */
                account?: string;
                /** @description part of an operation's name */
                operation?: string;
                /** @description part of a task id */
                id?: string;
                limit?: number;
                /** @description nextCursor of the previous page of recent tasks */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tasks in flight (running, queued) and recent ones */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UiTaskList"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    uiGetTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task, its history included */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UiTask"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No task with that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    uiInventory: {
        parameters: {
            query?: {
                /** @description part of an account's name */
                account?: string;
                /** @description part of a server group's name */
                serverGroup?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accounts, their clusters and server groups */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UiInventory"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready to take work */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not ready: the failing checks say why. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getRateLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per scope and policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimits"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    checkAccount: {
        parameters: {
            query?: {
                /** @description check this resource group only (default: the account's, and each holding its scale sets) */
                resourceGroup?: string;
            };
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each check OK, WARN or FAIL, with what was found and the fix */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountChecks"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    latestAccountChecks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per account checked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LatestChecks"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resourceGroupContents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.' */
                resourceGroup: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every resource of the group, or exists: false */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceGroupContents"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    regionVmSizes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
                account: string;
                /** @description an Azure region name such as eastus: lowercase letters and digits, no spaces */
                region: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The region's sizes, smallest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegionVmSizes"];
                };
            };
            /** @description ValidationError: a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid credentials: the message says what is missing */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller may not use that account (or may only read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description NotFound: an unknown task, route or scale set (what was looked for, and where to look) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description TooManyRequests: too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description InternalError: a bug in this service (logged), never a refusal of good input */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureError: Azure answered a read with an error that asking again will not change */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description AzureUnavailable: Azure did not answer a read, throttled it, or failed it in a way that asking again can change. Overloaded: this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory). TaskStoreUnavailable: the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done. ShuttingDown: this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other error, in the same shape: its error field is a code of the error catalogue */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
