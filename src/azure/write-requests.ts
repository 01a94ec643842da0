// The ARM requests a write step sends, for a dry run: the gateway's own write (vmss-gateway.ts), run on a client
// whose pipeline records each request and answers it at once instead of sending it. The method, the path with its
// api-version, the conditional headers and the body are then those the SDK's serializers and URL templates (and the
// network and autoscale gateways' own requests) build for the real write: nothing here builds a request a second
// time, so a dry run cannot drift from what a run sends. The client has none of the service's policies (the ARM
// budget, the listeners, the calls' spans): nothing recorded counts as a call to Azure.
import type { ComputeManagementClient } from "@azure/arm-compute";
import type { TokenCredential } from "@azure/core-auth";
import type { PipelinePolicy, PipelineRequest, PipelineResponse } from "@azure/core-rest-pipeline";
import { AutoscaleGateway } from "./autoscale-gateway.ts";
import { NetworkGateway } from "./network-gateway.ts";
import { computeSdk, pipelineSdk } from "./sdk.ts";
import { VmssGateway, type ScaleSetRef, type WriteStep } from "./vmss-gateway.ts";

/** One ARM request as a write sends it. */
export interface ArmRequest {
  method: string;
  /** The path and query as sent, the api-version with it: `/subscriptions/…/virtualMachineScaleSets/web-v001?api-version=…`. */
  path: string;
  /** The write's condition, when it carries one: `If-Match` (an ETag) or `If-None-Match` (`*`). */
  headers?: { "If-Match"?: string; "If-None-Match"?: string };
  /** The JSON body, as serialized for the wire; absent when the request has none. */
  body?: unknown;
}

/** Never asked for a token that is sent anywhere: the recording policy answers before the request would be signed. */
const NO_CREDENTIAL: TokenCredential = {
  getToken: () => Promise.resolve({ token: "not sent", expiresOnTimestamp: Date.now() + 3_600_000 }),
};

/**
 * What every recorded request is answered: 200 with a resource Azure holds as Succeeded, so that a long-running
 * operation ends on its first answer and a Microsoft.Network write needs no poll.
 */
const ANSWER = JSON.stringify({ properties: { provisioningState: "Succeeded" } });

function recorded(request: PipelineRequest, endpoint: string): ArmRequest {
  const url = new URL(request.url);
  const base = new URL(endpoint);
  // The endpoint's own path (none on Azure's) stays out: the path is the resource's.
  const prefix = base.pathname.replace(/\/+$/, "");
  const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
  const ifMatch = request.headers.get("if-match");
  const ifNoneMatch = request.headers.get("if-none-match");
  const text = typeof request.body === "string" ? request.body : undefined;
  return {
    method: request.method,
    path: `${path}${url.search}`,
    ...(ifMatch !== undefined || ifNoneMatch !== undefined
      ? {
          headers: {
            ...(ifMatch !== undefined ? { "If-Match": ifMatch } : {}),
            ...(ifNoneMatch !== undefined ? { "If-None-Match": ifNoneMatch } : {}),
          },
        }
      : {}),
    ...(text !== undefined && text !== "" ? { body: JSON.parse(text) as unknown } : {}),
  };
}

function recordingPolicy(requests: ArmRequest[], endpoint: string): PipelinePolicy {
  return {
    name: "vmssOpsRecordWrite",
    sendRequest(request): Promise<PipelineResponse> {
      requests.push(recorded(request, endpoint));
      return Promise.resolve({
        request,
        status: 200,
        headers: pipelineSdk().createHttpHeaders({ "content-type": "application/json" }),
        bodyAsText: ANSWER,
      });
    },
  };
}

/** A client for `endpoint` whose every request is recorded into `requests` and never sent. */
function recordingClient(endpoint: string, subscriptionId: string, requests: ArmRequest[]): ComputeManagementClient {
  return new (computeSdk().ComputeManagementClient)(NO_CREDENTIAL, subscriptionId, {
    endpoint,
    retryOptions: { maxRetries: 0 },
    additionalPolicies: [{ policy: recordingPolicy(requests, endpoint), position: "perCall" }],
  });
}

/**
 * The requests `step` sends on the scale set `ref` of an account whose ARM endpoint is `endpoint`, planned on a read
 * whose ETag was `etag`: the gateway's write, recorded, in the order it sends them (a Flexible set's NICs one by one).
 */
export async function requestsOfWrite(
  endpoint: string,
  ref: ScaleSetRef,
  step: WriteStep,
  etag: string | undefined,
): Promise<ArmRequest[]> {
  const requests: ArmRequest[] = [];
  const client = recordingClient(endpoint, ref.subscriptionId, requests);
  const gateway = new VmssGateway(
    client,
    ref,
    undefined,
    new NetworkGateway(client, endpoint),
    new AutoscaleGateway(client, endpoint, ref.subscriptionId),
  );
  await gateway.write(step, etag, { defaultPollIntervalMs: 1, maxPollIntervalMs: 1 });
  return requests;
}
