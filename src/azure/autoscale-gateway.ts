// Azure Monitor autoscale settings (Microsoft.Insights/autoscaleSettings, api-version 2022-10-01): find the setting
// that targets a scale set, write one, delete one. Sent through the account's compute client pipeline (its
// credential, TLS trust, ARM budget and listeners), as Microsoft.Network's calls are (network-gateway.ts): one
// pipeline for every call the service makes, where @azure/arm-monitor would be a second client per account with
// those policies built again.
//
// The resource has no ETag (Microsoft's specification defines none, and the SDK's writes take no If-Match): a plan
// reads the setting again on every attempt and writes it whole.
import type { ComputeManagementClient } from "@azure/arm-compute";
import { kindForStatus, RefusalError } from "./arm-failure.ts";
import { pipelineSdk, sharedHttpClient } from "./sdk.ts";

export const AUTOSCALE_API_VERSION = "2022-10-01";

/** A profile as Azure writes it: capacities are strings of whole numbers. */
export interface AutoscaleProfileWire {
  name: string;
  capacity: { minimum: string; maximum: string; default: string };
  rules: AutoscaleRuleWire[];
  recurrence?: {
    frequency: string;
    schedule: { timeZone: string; days: string[]; hours: number[]; minutes: number[] };
  };
  fixedDate?: { timeZone?: string; start: string; end: string };
  [key: string]: unknown;
}

export interface AutoscaleRuleWire {
  metricTrigger: { metricResourceUri: string; [key: string]: unknown };
  scaleAction: { [key: string]: unknown };
  [key: string]: unknown;
}

export interface AutoscaleSettingWire {
  id?: string;
  name?: string;
  location?: string;
  tags?: Record<string, string>;
  properties: {
    profiles: AutoscaleProfileWire[];
    enabled?: boolean;
    targetResourceUri?: string;
    targetResourceLocation?: string;
    notifications?: unknown[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** The setting's own name: the last segment of its id, else its name. */
export function settingName(setting: AutoscaleSettingWire): string {
  return setting.id?.split("/").pop() ?? setting.name ?? "";
}

/** What a PUT takes of a setting as read: what ARM computes (id, name, type, systemData) left out. */
export function writableSetting(setting: AutoscaleSettingWire): AutoscaleSettingWire {
  const { id: _id, name: _name, type: _type, systemData: _systemData, ...rest } = setting;
  return rest;
}

export class AutoscaleGateway {
  readonly #client: ComputeManagementClient;
  readonly #endpoint: string;
  readonly #subscriptionId: string;

  constructor(client: ComputeManagementClient, endpoint: string, subscriptionId: string) {
    this.#client = client;
    this.#endpoint = endpoint.replace(/\/+$/, "");
    this.#subscriptionId = subscriptionId;
  }

  #path(resourceGroup: string, name?: string): string {
    const base = `/subscriptions/${this.#subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Insights/autoscalesettings`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  async #send(
    method: "GET" | "PUT" | "DELETE",
    pathOrUrl: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: unknown }> {
    const url = /^https?:\/\//.test(pathOrUrl)
      ? pathOrUrl
      : `${this.#endpoint}${pathOrUrl}?api-version=${AUTOSCALE_API_VERSION}`;
    const request = pipelineSdk().createPipelineRequest({ url, method, abortSignal: signal, timeout: 60_000 });
    if (body !== undefined) {
      request.body = JSON.stringify(body);
      request.headers.set("content-type", "application/json");
    }
    const response = await this.#client.pipeline.sendRequest(sharedHttpClient(), request);
    const text = response.bodyAsText ?? "";
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed };
  }

  static #failure(what: string, status: number, body: unknown): RefusalError {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    // Classified as every ARM answer is (arm-failure.ts): 409 another writer, 429 and 5xx transient, 404 terminal.
    return new RefusalError(
      error?.code ?? `Http${status}`,
      `${what}: Azure answered ${status}${error?.message ? ` (${error.message})` : ""}`,
      kindForStatus(status, error?.code),
    );
  }

  /** The resource group's settings, following nextLink. */
  async list(resourceGroup: string, signal?: AbortSignal): Promise<AutoscaleSettingWire[]> {
    const out: AutoscaleSettingWire[] = [];
    let next: string | undefined = this.#path(resourceGroup);
    for (let page = 0; next !== undefined; page++) {
      if (page >= 100)
        throw new RefusalError("TooManyPages", "listing autoscale settings: more than 100 pages", "server");
      const res = await this.#send("GET", next, undefined, signal);
      if (res.status !== 200)
        throw AutoscaleGateway.#failure(`listing the autoscale settings of ${resourceGroup}`, res.status, res.body);
      const body = res.body as { value?: AutoscaleSettingWire[]; nextLink?: string } | undefined;
      out.push(...(body?.value ?? []));
      next = body?.nextLink || undefined;
    }
    return out;
  }

  /** The setting whose targetResourceUri is the scale set (ARM ids compare case-insensitively), or null. */
  async forScaleSet(
    resourceGroup: string,
    scaleSetId: string,
    signal?: AbortSignal,
  ): Promise<AutoscaleSettingWire | null> {
    const wanted = scaleSetId.toLowerCase();
    const settings = await this.list(resourceGroup, signal);
    return settings.find((s) => (s.properties?.targetResourceUri ?? "").toLowerCase() === wanted) ?? null;
  }

  /** Creates or replaces a setting, whole. */
  async put(
    resourceGroup: string,
    name: string,
    setting: AutoscaleSettingWire,
    signal?: AbortSignal,
  ): Promise<AutoscaleSettingWire> {
    const res = await this.#send("PUT", this.#path(resourceGroup, name), writableSetting(setting), signal);
    if (res.status !== 200 && res.status !== 201)
      throw AutoscaleGateway.#failure(`writing autoscale setting ${name}`, res.status, res.body);
    return res.body as AutoscaleSettingWire;
  }

  /** Deletes a setting; one already gone is no failure (200 or 204). */
  async delete(resourceGroup: string, name: string, signal?: AbortSignal): Promise<void> {
    const res = await this.#send("DELETE", this.#path(resourceGroup, name), undefined, signal);
    if (res.status !== 200 && res.status !== 204)
      throw AutoscaleGateway.#failure(`deleting autoscale setting ${name}`, res.status, res.body);
  }
}
