// A dry run's planned write as a reviewer reads it: the ARM requests it would send (recorded from the gateway's own
// write: src/azure/write-requests.ts), what each changes of what Azure holds now (what-if's shape:
// src/azure/what-if.ts), and the writes a run may make after it, with what decides them. Secrets are censored by
// the log's rule (src/observability/log-redaction.ts): a request's body at any depth, a change by its property's name.
import type { AccountRegistry } from "../azure/accounts.ts";
import type { PlannedWrite } from "../azure/observe.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { PropertyChange, ResourceChange } from "../azure/what-if.ts";
import { changesOfWrite } from "../azure/write-changes.ts";
import { requestsOfWrite, type ArmRequest } from "../azure/write-requests.ts";
import { laterWrites, type LaterWrite } from "../operations/later-writes.ts";
import type { OperationName } from "../operations/operation-names.ts";
import { CENSORED, censorSecretsDeep, isSecretKey } from "../observability/log-redaction.ts";

export interface DescribedWrite {
  requests: ArmRequest[];
  changes: ResourceChange[];
  later: LaterWrite[];
}

function censoredRequest(request: ArmRequest): ArmRequest {
  return request.body === undefined ? request : { ...request, body: censorSecretsDeep(request.body) };
}

/** A property change with a secret's values censored: by its own name (the path's last part), or inside a value. */
function censoredChange(change: PropertyChange): PropertyChange {
  const secret = isSecretKey(change.path.split(".").at(-1) ?? "");
  const value = (v: unknown) => (secret ? CENSORED : censorSecretsDeep(v));
  return {
    ...change,
    ...("before" in change ? { before: value(change.before) } : {}),
    ...("after" in change ? { after: value(change.after) } : {}),
    ...(change.children ? { children: change.children.map(censoredChange) } : {}),
  };
}

/** The requests, changes and later writes of the write a dry run of `operation` planned on `ref`. */
export async function describePlannedWrite(
  accounts: Pick<AccountRegistry, "get">,
  operation: OperationName,
  ref: ScaleSetRef,
  planned: PlannedWrite,
): Promise<DescribedWrite> {
  const endpoint = accounts.get(ref.account)?.endpoint;
  if (!endpoint) throw new Error(`account ${ref.account} has no ARM endpoint`);
  const requests = await requestsOfWrite(endpoint, ref, planned.step, planned.snapshot?.etag);
  const changes = changesOfWrite(planned, requests);
  return {
    requests: requests.map(censoredRequest),
    changes: changes.map((c) => (c.delta ? { ...c, delta: c.delta.map(censoredChange) } : c)),
    later: laterWrites(operation, planned.step, planned.snapshot),
  };
}
