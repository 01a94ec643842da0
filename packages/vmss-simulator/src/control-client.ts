// A small client for the simulator's control API (/_sim), for tests and tools. It trusts the simulator's
// certificate for its own connections only (an undici Agent with `ca`), never globally.
import { Agent, request } from "undici";
import type { CallRecord } from "./calls.ts";
import type { FaultSpec, ScaleSetChange } from "./fault-specs.ts";
import type { Fault } from "./faults.ts";
import type { JsonObject } from "./json.ts";
import type { SimulatorSettings } from "./settings.ts";
import type { ThrottlingConfig, ThrottlingSnapshot, ThrottlingUpdate } from "./throttling.ts";

/** GET/PUT /_sim/config: the settings in force and the throttling configuration. */
export type SimulatorConfigView = SimulatorSettings & { throttling: ThrottlingConfig };
export type SimulatorConfigUpdate = Partial<SimulatorSettings> & { throttling?: ThrottlingUpdate };

export interface ControlScaleSetSpec {
  capacity: number;
  loadBalanced?: boolean;
  applicationGateway?: boolean;
  upgradePolicy?: "Manual" | "Automatic" | "Rolling";
  location?: string;
  tags?: Record<string, string>;
  /** Flexible: the VMs are standalone Microsoft.Compute/virtualMachines with their own NICs. */
  orchestrationMode?: "Uniform" | "Flexible";
}

export interface ScaleSetSnapshot {
  vmss: JsonObject;
  vms: JsonObject[];
  etag: string;
  inFlight: null | { opId: string; kind: string; startedAt: number; completesAt: number };
}

/** GET /_sim/operations: a long-running operation, with Azure's times (ms since the epoch). */
export interface OperationRecord {
  id: string;
  kind: string;
  /** "resource group/name", lower case. */
  scaleSet: string;
  status: "InProgress" | "Succeeded" | "Failed" | "Canceled";
  startedAt: number;
  endTime?: number;
  /** VMs that began running when it ended: the health probe starts over for each. */
  vmsStarted: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text when not JSON, or undefined when empty. */
  body: unknown;
}

export class SimulatorControlError extends Error {
  override name = "SimulatorControlError";
  readonly status: number;
  readonly body: unknown;
  constructor(method: string, path: string, response: RawResponse) {
    super(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    this.status = response.status;
    this.body = response.body;
  }
}

export class SimulatorControl {
  readonly url: string;
  readonly #agent: Agent;

  constructor(sim: { url: string; caPem: string }) {
    this.url = sim.url.replace(/\/+$/, "");
    this.#agent = new Agent({ connect: { ca: sim.caPem } });
  }

  /** Any request to the simulator (ARM paths too); never throws for an HTTP status. */
  async request(
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await request(`${this.url}${path}`, {
      method: method as "GET",
      headers,
      body,
      dispatcher: this.#agent,
    });
    const text = await res.body.text();
    let parsed: unknown = undefined;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body === undefined ? {} : { body });
    if (res.status < 200 || res.status > 299) throw new SimulatorControlError(method, path, res);
    return res.body as T;
  }

  health(): Promise<{ status: string }> {
    return this.#call("GET", "/_sim/health");
  }
  calls(): Promise<CallRecord[]> {
    return this.#call("GET", "/_sim/calls");
  }
  operations(): Promise<OperationRecord[]> {
    return this.#call("GET", "/_sim/operations");
  }
  async clearCalls(): Promise<void> {
    await this.#call("DELETE", "/_sim/calls");
  }
  faults(): Promise<Fault[]> {
    return this.#call("GET", "/_sim/faults");
  }
  addFault(fault: FaultSpec): Promise<Fault> {
    return this.#call("POST", "/_sim/faults", fault);
  }
  async clearFaults(): Promise<void> {
    await this.#call("DELETE", "/_sim/faults");
  }
  async reset(): Promise<void> {
    await this.#call("POST", "/_sim/reset");
  }
  getConfig(): Promise<SimulatorConfigView> {
    return this.#call("GET", "/_sim/config");
  }
  setConfig(settings: SimulatorConfigUpdate): Promise<SimulatorConfigView> {
    return this.#call("PUT", "/_sim/config", settings);
  }
  /** Throttling on (with optional scale / per-policy overrides), or `{ enabled: false }` to switch it off. */
  async setThrottling(update: ThrottlingUpdate): Promise<void> {
    await this.#call("PUT", "/_sim/config", { throttling: update });
  }
  throttling(): Promise<ThrottlingSnapshot> {
    return this.#call("GET", "/_sim/throttling");
  }
  /** Another caller spends `tokens` of the subscription's ARM budget; answers the whole tokens left. */
  spendArmBudget(
    budget: "reads" | "writes" | "deletes",
    tokens: number,
  ): Promise<{ budget: string; remaining: number }> {
    return this.#call("POST", "/_sim/throttling/spend", { budget, tokens });
  }
  putScaleSet(resourceGroup: string, name: string, spec: ControlScaleSetSpec): Promise<JsonObject> {
    return this.#call("PUT", `/_sim/scaleSets/${encodeURIComponent(resourceGroup)}/${encodeURIComponent(name)}`, spec);
  }
  patchScaleSet(resourceGroup: string, name: string, change: ScaleSetChange): Promise<JsonObject> {
    return this.#call(
      "PATCH",
      `/_sim/scaleSets/${encodeURIComponent(resourceGroup)}/${encodeURIComponent(name)}`,
      change,
    );
  }
  getScaleSet(resourceGroup: string, name: string): Promise<ScaleSetSnapshot> {
    return this.#call("GET", `/_sim/scaleSets/${encodeURIComponent(resourceGroup)}/${encodeURIComponent(name)}`);
  }
  async deleteScaleSet(resourceGroup: string, name: string): Promise<void> {
    await this.#call("DELETE", `/_sim/scaleSets/${encodeURIComponent(resourceGroup)}/${encodeURIComponent(name)}`);
  }
  /** A load balancer's (or application gateway's) pools with their members (scale set, instance id or VM name, health). */
  traffic(
    type: "loadBalancers" | "applicationGateways",
    resourceGroup: string,
    name: string,
  ): Promise<{
    id: string;
    pools: {
      name: string;
      members: { scaleSet: string; instanceId: string; health: string | null; serving: boolean }[];
      serving: number;
    }[];
  }> {
    return this.#call(
      "GET",
      `/_sim/network/${type}/${encodeURIComponent(resourceGroup)}/${encodeURIComponent(name)}/traffic`,
    );
  }
  async putResourceGroup(resourceGroup: string): Promise<void> {
    await this.#call("PUT", `/_sim/resourceGroups/${encodeURIComponent(resourceGroup)}`);
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
