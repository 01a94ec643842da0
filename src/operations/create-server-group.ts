// createServerGroup and cloneServerGroup: the first stage of a red/black deploy. The scale set is named by Spinnaker's
// rules (the next `app-stack-detail-vNNN` of the cluster, create/server-group-name.ts), created with one PUT carrying
// If-None-Match: * (never replacing a scale set, ours or another's), and done only when Azure confirms it:
// Succeeded, with as many running instances as its capacity.
//
// A new group serves at the end of its create, as clouddriver-azure's does (CreateAzureServerGroupAtomicOperation
// .groovy l.225-242 enables it), because Orca's strategies disable or destroy the older groups next: its NICs are in
// its backend pools from the start, where the load balancer sends traffic only to instances its probe finds healthy,
// and the create ends only once every instance is. One whose instances do not become healthy within
// healthyTimeoutSeconds is taken out of its pools again (as disableServerGroup does) and the create fails with the
// reason, so that Orca stops before it touches the older groups. `disabled: true` creates it out of traffic.
//
// A createServerGroup builds the model from its description alone. Orca's `source` (DetermineSourceServerGroupTask)
// names the cluster's current group: it is not copied (cloneServerGroup copies); only what Orca asks of it is taken,
// its capacity when useSourceCapacity.
//
// One request creates at most one scale set. The scale set records which request made it (TAG_CREATED_BY: the
// clientRequestId, or the task when there is none); a task that finds a scale set of its cluster with its own record
// follows that one instead of creating another. So a crash, a retry, a 412 after a lost response, or the same
// clientRequestId submitted again never make a second one; a new request without a clientRequestId is a new deploy.
import { defineOperation, type LocatedDescription } from "./operation.ts";
import { CreateServerGroupDescription, CloneServerGroupDescription, type AnyCreate } from "./create/description.ts";
import { sourceName, clusterOfNewGroup, checkCreate, checkClone } from "./create/checks.ts";
import { prepareCreate } from "./create/prepare.ts";
import { createPlanner } from "./create/create-planner.ts";
import { strictCloneProblems } from "./create/clone-unreadable.ts";

function describeCreate(d: AnyCreate): string {
  return `create a server group in cluster ${clusterOfNewGroup(d)}`;
}

function describeClone(d: AnyCreate): string {
  return `clone ${sourceName(d)} into cluster ${clusterOfNewGroup(d)}`;
}

/** Locates the cluster (for account checks and for the order of tasks) until prepare names the scale set. */
function locator(d: AnyCreate): LocatedDescription {
  return { ...d, serverGroupName: clusterOfNewGroup(d) };
}

export const createServerGroup = defineOperation({
  name: "createServerGroup",
  summary:
    "Create the next server group of a cluster (app-stack-detail-vNNN), in traffic once its instances are healthy (Deck's and Orca's deploy)",
  schema: CreateServerGroupDescription,
  check: checkCreate,
  describe: describeCreate,
  locator,
  prepare: (d, ctx) => prepareCreate(d, ctx, false),
  planner: (d, target, run) => createPlanner(d, target, run),
});

export const cloneServerGroup = defineOperation({
  name: "cloneServerGroup",
  summary:
    "Create the next server group of a cluster with the source's model and the given overrides (Orca's clone stage)",
  schema: CloneServerGroupDescription,
  check: checkClone,
  describe: describeClone,
  locator,
  strictProblems: strictCloneProblems,
  prepare: (d, ctx) => prepareCreate(d, ctx, true),
  planner: (d, target, run) => createPlanner(d, target, run),
});
