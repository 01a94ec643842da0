// Microsoft.Network, as much of it as a deploy needs: read a virtual network's subnet, a network security group, a
// load balancer or an application gateway by id, and write one back with a backend pool added. Sent through the
// account's compute client pipeline (its credential, TLS trust and listeners), with Microsoft.Network's api-version.
// The management locks of a resource group (Microsoft.Authorization) are read through the same pipeline.
import type { ComputeManagementClient } from "@azure/arm-compute";
import { setTimeout as sleep } from "node:timers/promises";
import { kindForStatus, RefusalError } from "./arm-failure.ts";
import { LOCKS_API_VERSION, parseLocks, type ManagementLock } from "./management-locks.ts";
import { pipelineSdk, sharedHttpClient } from "./sdk.ts";

export const NETWORK_API_VERSION = "2024-05-01";

/** A child of a network resource, as far as this service reads it: a backend or NAT pool, a frontend, a subnet. */
export type NetworkChild = { id?: string; name?: string; properties?: Record<string, unknown> };

export type NetworkResource = {
  id?: string;
  name?: string;
  etag?: string;
  location?: string;
  properties?: {
    provisioningState?: string;
    backendAddressPools?: NetworkChild[];
    inboundNatPools?: NetworkChild[];
    frontendIPConfigurations?: NetworkChild[];
    subnets?: NetworkChild[];
    ipConfigurations?: NetworkChild[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

export function networkId(subscriptionId: string, resourceGroup: string, type: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Network/${type}/${name}`;
}

export class NetworkGateway {
  readonly #client: ComputeManagementClient;
  readonly #endpoint: string;

  constructor(client: ComputeManagementClient, endpoint: string) {
    this.#client = client;
    this.#endpoint = endpoint.replace(/\/+$/, "");
  }

  async #send(
    method: "GET" | "PUT",
    id: string,
    body?: unknown,
    signal?: AbortSignal,
    ifMatch?: string,
    apiVersion = NETWORK_API_VERSION,
  ): Promise<{ status: number; body: NetworkResource | undefined; headers: Map<string, string> }> {
    // A nextLink is a whole URL with its api-version; an id is a path.
    const url = /^https?:\/\//.test(id) ? id : `${this.#endpoint}${id}?api-version=${apiVersion}`;
    const request = pipelineSdk().createPipelineRequest({ url, method, abortSignal: signal, timeout: 60_000 });
    if (ifMatch !== undefined) request.headers.set("if-match", ifMatch);
    if (body !== undefined) {
      request.body = JSON.stringify(body);
      request.headers.set("content-type", "application/json");
    }
    const response = await this.#client.pipeline.sendRequest(sharedHttpClient(), request);
    const text = response.bodyAsText ?? "";
    let parsed: NetworkResource | undefined;
    try {
      parsed = text ? (JSON.parse(text) as NetworkResource) : undefined;
    } catch {
      parsed = undefined;
    }
    const headers = new Map<string, string>();
    for (const [k, v] of response.headers) headers.set(k.toLowerCase(), v);
    return { status: response.status, body: parsed, headers };
  }

  static #failure(what: string, status: number, body: NetworkResource | undefined): RefusalError {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    // Classified as every ARM answer is (arm-failure.ts): 412 is a stale read, 409 another writer, 429 and 5xx transient.
    return new RefusalError(
      error?.code ?? `Http${status}`,
      `${what}: Azure answered ${status}${error?.message ? ` (${error.message})` : ""}`,
      kindForStatus(status, error?.code),
    );
  }

  /** The resource, or undefined when Azure answers 404. Another provider's resource: with its api-version. */
  async get(id: string, signal?: AbortSignal, apiVersion?: string): Promise<NetworkResource | undefined> {
    const res = await this.#send("GET", id, undefined, signal, undefined, apiVersion);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw NetworkGateway.#failure(`GET ${id}`, res.status, res.body);
    return res.body;
  }

  /**
   * Every resource of a type in a resource group (`GET …/resourceGroups/{rg}/providers/Microsoft.Network/{type}`),
   * following nextLink: one call per page, where reading each by id would be one per resource.
   */
  async list(
    subscriptionId: string,
    resourceGroup: string,
    type: string,
    signal?: AbortSignal,
  ): Promise<NetworkResource[]> {
    const path = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Network/${type}`;
    return (await this.#listPages(path, NETWORK_API_VERSION, `listing ${type} of ${resourceGroup}`, signal, false))!;
  }

  /**
   * The management locks of a resource group: its own and those of every resource in it (ManagementLocks_
   * ListAtResourceGroupLevel). Undefined when the credential may not read them (403): Azure still refuses a delete
   * of a locked resource (409 ScopeLocked), so not knowing them is no danger, only a later refusal.
   */
  async listLocks(
    subscriptionId: string,
    resourceGroup: string,
    signal?: AbortSignal,
  ): Promise<ManagementLock[] | undefined> {
    const path = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Authorization/locks`;
    const pages = await this.#listPages(path, LOCKS_API_VERSION, `listing the locks of ${resourceGroup}`, signal, true);
    return pages === undefined ? undefined : parseLocks(pages);
  }

  /** Every page of a list, following nextLink; undefined on 403 when `forbiddenIsUnknown`. */
  async #listPages(
    path: string,
    apiVersion: string,
    what: string,
    signal: AbortSignal | undefined,
    forbiddenIsUnknown: boolean,
  ): Promise<NetworkResource[] | undefined> {
    const out: NetworkResource[] = [];
    let next: string | undefined = path;
    for (let page = 0; next !== undefined; page++) {
      if (page >= 1000) throw new RefusalError("TooManyPages", `${what}: more than 1000 pages`, "server");
      const res = await this.#send("GET", next, undefined, signal, undefined, apiVersion);
      if (res.status === 403 && forbiddenIsUnknown) return undefined;
      if (res.status !== 200) throw NetworkGateway.#failure(what, res.status, res.body);
      const body = res.body as { value?: NetworkResource[]; nextLink?: string } | undefined;
      out.push(...(body?.value ?? []));
      next = body?.nextLink || undefined;
    }
    return out;
  }

  /**
   * Writes the resource and waits until it is Succeeded. With `ifMatch`, the write carries If-Match on the ETag it
   * was read with: planned on a stale read, it gets 412 (a precondition failure: re-read, re-plan).
   */
  async put(
    id: string,
    resource: NetworkResource,
    signal?: AbortSignal,
    options: { ifMatch?: string } = {},
  ): Promise<NetworkResource> {
    const { etag: _etag, ...body } = resource;
    const res = await this.#send("PUT", id, body, signal, options.ifMatch);
    if (res.status !== 200 && res.status !== 201) throw NetworkGateway.#failure(`PUT ${id}`, res.status, res.body);
    // Microsoft.Network answers at once, often with provisioningState Updating; poll the resource until it settles
    // (an answer already Succeeded needs no poll).
    if (String(res.body?.properties?.provisioningState ?? "") === "Succeeded") return res.body!;
    for (let i = 0; i < 120; i++) {
      const read = await this.get(id, signal);
      const state = String(read?.properties?.provisioningState ?? "Succeeded");
      if (state === "Succeeded") return read ?? res.body ?? resource;
      if (state === "Failed") throw new RefusalError("NetworkWriteFailed", `PUT ${id}: Azure left it Failed`);
      await sleep(Math.min(5000, 250 * (i + 1)), undefined, { signal });
    }
    throw new RefusalError("NetworkWriteTimedOut", `PUT ${id}: still not Succeeded`, "server");
  }
}
