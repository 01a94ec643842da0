// The reads of `vmss-ops doctor` (GET /accounts/{account}/checks): everything is read once, through the account's own
// ARM pipeline (its credential, TLS trust and listeners), then judged by judge.ts. Reads only: nothing is written.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import type { AccountRegistry } from "../azure/accounts.ts";
import { keyVaultAudience } from "../azure/accounts.ts";
import type { AccountConfig } from "../azure/account-config.ts";
import { actionsAt } from "../azure/arm-actions.ts";
import type { ArmBudgetFigures } from "../azure/arm-budget/figures.ts";
import { armScope, credentialFor } from "../azure/client.ts";
import { NETWORK_API_VERSION } from "../azure/network-gateway.ts";
import { pipelineSdk, sharedHttpClient } from "../azure/sdk.ts";
import { recordedCapacity } from "../operations/server-group-state.ts";
import {
  judgeArmBudget,
  judgeClockSkew,
  judgeCredential,
  judgeNamedResource,
  judgePermissions,
  judgeProvider,
  judgeQuota,
  judgeSubscription,
  worstOf,
  type Answer,
  type CheckResult,
  type CheckStatus,
  type NamedResource,
  type Permission,
  type Usage,
  type ServerGroupNeed,
  type SimulatorPace,
  type SkuSize,
} from "./judge.ts";

/** The api-versions the service calls with: @azure/arm-compute 25's for scale sets, the gateway's for the network. */
export const COMPUTE_API_VERSION = "2026-04-01";
const RESOURCES_API_VERSION = "2022-12-01";
const PERMISSIONS_API_VERSION = "2022-04-01";
const USAGES_API_VERSION = "2024-07-01";
const SKUS_API_VERSION = "2021-07-01";
const KEY_VAULT_API_VERSION = "7.4";
const READ_TIMEOUT_MS = 30_000;

export interface CheckReport {
  account: string;
  status: CheckStatus;
  /** When the checks ran (ISO 8601). */
  checkedAt: string;
  checks: CheckResult[];
}

export interface CheckOptions {
  /** Check this resource group only (else the account's default one and every one holding its scale sets). */
  resourceGroup?: string;
  /** The service's ARM budget, when it counts its calls (ARM_BUDGET): what it allows itself per subscription. */
  armBudget?: { figures: ArmBudgetFigures };
  /** The simulator's clock the service paces itself by, when it talks to the simulator alone. */
  simulatorPace?: SimulatorPace;
}

export interface Read<T> {
  answer: Answer<T>;
  /** Azure's Date header, and when the answer arrived by this machine's clock. */
  date?: string;
  receivedAt: number;
  /** ARM's x-ms-ratelimit-remaining-subscription-reads: the subscription's reads left this hour. */
  remainingReads?: number;
}

interface ScaleSetBody {
  id?: string;
  name?: string;
  location?: string;
  sku?: { name?: string; capacity?: number };
  tags?: Record<string, string>;
  properties?: {
    virtualMachineProfile?: { networkProfile?: { networkInterfaceConfigurations?: NicConfiguration[] } };
  };
}

type Ref = { id?: unknown };
interface NicConfiguration {
  properties?: {
    ipConfigurations?: {
      properties?: {
        subnet?: Ref;
        loadBalancerBackendAddressPools?: Ref[];
        applicationGatewayBackendAddressPools?: Ref[];
      };
    }[];
  };
}

interface ProviderBody {
  registrationState?: string;
  resourceTypes?: { resourceType?: string; apiVersions?: string[] }[];
}
interface SkuBody {
  name?: string;
  family?: string;
  capabilities?: { name?: string; value?: string }[];
}

/** The reads of one account, through its ARM client's pipeline. */
export class AccountReader {
  readonly #registry: AccountRegistry;
  readonly account: AccountConfig;

  constructor(registry: AccountRegistry, account: AccountConfig) {
    this.#registry = registry;
    this.account = account;
  }

  /** One GET of an ARM path or of a whole URL (a nextLink); an error answer is an answer, a network failure throws. */
  async get<T>(pathOrUrl: string, apiVersion: string): Promise<Read<T>> {
    const url = /^https?:\/\//.test(pathOrUrl)
      ? pathOrUrl
      : `${this.account.endpoint}${pathOrUrl}${pathOrUrl.includes("?") ? "&" : "?"}api-version=${apiVersion}`;
    const response = await this.#registry
      .client(this.account.name)
      .pipeline.sendRequest(
        sharedHttpClient(),
        pipelineSdk().createPipelineRequest({ url, method: "GET", timeout: READ_TIMEOUT_MS }),
      );
    const remaining = Number(response.headers.get("x-ms-ratelimit-remaining-subscription-reads") ?? Number.NaN);
    return {
      answer: answerOf<T>(response.status, response.bodyAsText),
      date: response.headers.get("date"),
      receivedAt: Date.now(),
      ...(Number.isFinite(remaining) ? { remainingReads: remaining } : {}),
    };
  }

  /** Every item of a list, following nextLink; the first refusal is the answer. */
  async list<T>(path: string, apiVersion: string): Promise<Answer<{ value: T[] }>> {
    const value: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next && page < 100; page++) {
      const { answer }: Read<{ value?: T[]; nextLink?: string }> = await this.get(next, apiVersion);
      if (!answer.ok) return answer;
      value.push(...(answer.body.value ?? []));
      next = answer.body.nextLink;
    }
    return { ok: true, body: { value } };
  }

  /** A secret of a vault, read with the account's credential for Key Vault's audience. */
  async secret(vaultUrl: string, name: string): Promise<Answer<unknown>> {
    const token = await credentialFor(this.account).getToken(`${keyVaultAudience(vaultUrl)}/.default`);
    if (!token) return { ok: false, status: 401, message: "no token for Key Vault" };
    const { createEmptyPipeline, createPipelineRequest } = pipelineSdk();
    const request = createPipelineRequest({
      url: `${vaultUrl}/secrets/${encodeURIComponent(name)}?api-version=${KEY_VAULT_API_VERSION}`,
      method: "GET",
      timeout: READ_TIMEOUT_MS,
    });
    if (this.account.caPem) request.tlsSettings = { ca: this.account.caPem };
    request.headers.set("authorization", `Bearer ${token.token}`);
    const response = await createEmptyPipeline().sendRequest(sharedHttpClient(), request);
    // The value is never kept: only whether it could be read.
    const answer = answerOf<unknown>(response.status, response.bodyAsText);
    return answer.ok ? { ok: true, body: {} } : answer;
  }
}

function answerOf<T>(status: number, text: string | null | undefined): Answer<T> {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = {};
  }
  if (status >= 200 && status < 300) return { ok: true, body: body as T };
  const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
  return { ok: false, status, code: error?.code, message: error?.message };
}

/** Each check is judged even when another's read fails; a read that throws is that check's WARN. */
async function guarded(check: string, run: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    return [
      {
        check,
        status: "WARN",
        found: `could not be read: ${e.name ?? "Error"}${e.code ? ` ${e.code}` : ""}: ${(e.message ?? "").slice(0, 200)}`,
        fix: "run doctor again; if it stays, check the network path from the service to Azure",
      },
    ];
  }
}

function resourceGroupOf(id: string | undefined): string | undefined {
  return id ? /\/resourceGroups\/([^/]+)/i.exec(id)?.[1] : undefined;
}

/** The load balancers, application gateways and subnets a scale set's network profile names. */
export function namedNetworkResources(ss: ScaleSetBody): NamedResource[] {
  const out: NamedResource[] = [];
  const namedBy = ss.name ?? "a scale set";
  const poolOwner = (pool: Ref) =>
    typeof pool.id === "string" ? [pool.id.replace(/\/backendAddressPools\/[^/]+$/i, "")] : [];
  for (const nic of ss.properties?.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations ?? []) {
    for (const ipc of nic.properties?.ipConfigurations ?? []) {
      const p = ipc.properties ?? {};
      if (typeof p.subnet?.id === "string") out.push({ kind: "subnet", id: p.subnet.id, namedBy });
      for (const id of (p.loadBalancerBackendAddressPools ?? []).flatMap(poolOwner))
        out.push({ kind: "load balancer", id, namedBy });
      for (const id of (p.applicationGatewayBackendAddressPools ?? []).flatMap(poolOwner))
        out.push({ kind: "application gateway", id, namedBy });
    }
  }
  return out;
}

/** The Key Vault secrets an account's create reads (clouddriver-azure's names). */
export function namedSecrets(account: AccountConfig): NamedResource[] {
  const v = account.vmAdmin;
  if (!v?.keyVaultUrl) return [];
  const names = [
    ...(v.adminUsername ? [] : ["VMUsername"]),
    v.useSshPublicKey === false ? "VMPassword" : "VMSshPublicKey",
  ];
  return names.map((n) => ({
    kind: "Key Vault secret",
    id: `${v.keyVaultUrl}/secrets/${n}`,
    namedBy: `account ${account.name}'s vmAdmin.keyVaultUrl`,
  }));
}

/** What every step of one account's checks shares: its reads, the options, and the results so far. */
interface CheckRun {
  reader: AccountReader;
  account: AccountConfig;
  /** `/subscriptions/{id}`. */
  sub: string;
  options: CheckOptions;
  checks: CheckResult[];
}

/** Runs every check of one account. Unknown accounts are the caller's to refuse. */
export async function runAccountChecks(
  registry: AccountRegistry,
  accountName: string,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const account = registry.get(accountName);
  if (!account) throw new Error(`unknown account ${accountName}`);
  const run: CheckRun = {
    reader: new AccountReader(registry, account),
    account,
    sub: `/subscriptions/${account.subscriptionId}`,
    options,
    checks: [],
  };
  await checkCredential(run);
  if (run.checks[0].status === "FAIL") return report(account.name, run.checks);
  const subscriptionRead = await checkSubscription(run);
  checkArmBudget(run, subscriptionRead);
  await checkProviders(run);
  const scaleSets = await listScaleSets(run);
  await checkPermissions(run, scaleSets);
  await checkQuota(run, scaleSets);
  await checkNamedResources(run, scaleSets);
  return report(account.name, run.checks);
}

async function checkCredential({ account, checks }: CheckRun): Promise<void> {
  checks.push(
    ...(await guarded("credential", async () => {
      const kind = account.credential.kind;
      try {
        const token = await credentialFor(account).getToken(armScope(account));
        if (!token)
          return [judgeCredential({ kind, token: { error: "the credential returned no token" }, now: Date.now() })];
        return [judgeCredential({ kind, token, now: Date.now() })];
      } catch (err) {
        return [judgeCredential({ kind, token: { error: (err as Error).message.slice(0, 300) }, now: Date.now() })];
      }
    })),
  );
}

/** The subscription, whose answer's Date header is the clock to compare with; its read, for the ARM budget. */
async function checkSubscription({ reader, account, sub, checks }: CheckRun): Promise<Read<unknown> | undefined> {
  let read: Read<{ state?: string }> | undefined;
  checks.push(
    ...(await guarded("subscription", async () => {
      read = await reader.get<{ state?: string }>(sub, RESOURCES_API_VERSION);
      return [judgeClockSkew(read.date, read.receivedAt), judgeSubscription(account.subscriptionId, read.answer)];
    })),
  );
  return read;
}

/** The budget the service spends per subscription against Azure's, and what Azure says is left of this hour's. */
function checkArmBudget({ account, options, checks }: CheckRun, read: Read<unknown> | undefined): void {
  checks.push(
    judgeArmBudget({
      subscriptionId: account.subscriptionId,
      figures: options.armBudget?.figures,
      simulator: account.credential.kind === "simulator",
      remainingReads: read?.remainingReads,
      ...(options.simulatorPace ? { clock: options.simulatorPace } : {}),
    }),
  );
}

async function checkProviders({ reader, account, sub, checks }: CheckRun): Promise<void> {
  const providers = [
    { namespace: "Microsoft.Compute", resourceType: "virtualMachineScaleSets", apiVersion: COMPUTE_API_VERSION },
    { namespace: "Microsoft.Network", resourceType: "networkInterfaces", apiVersion: NETWORK_API_VERSION },
    ...(account.vmAdmin?.keyVaultUrl
      ? [{ namespace: "Microsoft.KeyVault", resourceType: "vaults", apiVersion: "2023-07-01" }]
      : []),
  ];
  for (const p of providers)
    checks.push(
      ...(await guarded(`provider ${p.namespace}`, async () => [
        judgeProvider(
          account.subscriptionId,
          p,
          (await reader.get<ProviderBody>(`${sub}/providers/${p.namespace}`, RESOURCES_API_VERSION)).answer,
        ),
      ])),
    );
}

/** The account's scale sets: where it acts (their resource groups and regions) and what their networks name. */
async function listScaleSets({ reader, account, sub, options, checks }: CheckRun): Promise<ScaleSetBody[]> {
  const listed = await reader.list<ScaleSetBody>(
    `${sub}/providers/Microsoft.Compute/virtualMachineScaleSets`,
    COMPUTE_API_VERSION,
  );
  if (!listed.ok) {
    checks.push({
      check: "scale sets",
      status: "WARN",
      found: `the subscription's scale sets could not be listed (${listed.status} ${listed.code ?? ""}): quota and named resources were checked without them`,
      fix: "grant Microsoft.Compute/virtualMachineScaleSets/read (the vmss-ops operator role) on the resource groups",
    });
    return [];
  }
  const inRegion = (ss: ScaleSetBody) =>
    account.regions.length === 0 || account.regions.includes((ss.location ?? "").toLowerCase());
  const inGroup = (ss: ScaleSetBody) =>
    !options.resourceGroup || resourceGroupOf(ss.id)?.toLowerCase() === options.resourceGroup.toLowerCase();
  return listed.body.value.filter((ss) => inRegion(ss) && inGroup(ss));
}

/** The resource groups to check: the one asked for, else the account's default and each holding its scale sets. */
function groupsToCheck(account: AccountConfig, options: CheckOptions, scaleSets: ScaleSetBody[]): string[] {
  const groups = new Map<string, string>();
  const addGroup = (name: string | undefined) => name && groups.set(name.toLowerCase(), name);
  if (options.resourceGroup) addGroup(options.resourceGroup);
  else {
    addGroup(account.defaultResourceGroup);
    for (const ss of scaleSets) addGroup(resourceGroupOf(ss.id));
  }
  return [...groups.values()];
}

async function checkPermissions(run: CheckRun, scaleSets: ScaleSetBody[]): Promise<void> {
  const { reader, sub, checks } = run;
  const groups = groupsToCheck(run.account, run.options, scaleSets);
  if (groups.length === 0)
    checks.push({
      check: "permissions",
      status: "WARN",
      found: "the account has no default resource group and no scale sets: no resource group to check",
      fix: "name one: vmss-ops doctor --account <name> --resource-group <group>",
    });
  const permissionsAt = async (id: string) =>
    (
      await reader.get<{ value?: Permission[] }>(
        `${id}/providers/Microsoft.Authorization/permissions`,
        PERMISSIONS_API_VERSION,
      )
    ).answer;
  const needed = actionsAt("resourceGroup").actions;
  for (const name of groups) {
    const id = `${sub}/resourceGroups/${name}`;
    checks.push(
      ...(await guarded(`permissions on ${name}`, async () => [
        judgePermissions({ name, id, scope: "resourceGroup", needed }, await permissionsAt(id)),
      ])),
    );
  }
  checks.push(
    ...(await guarded("permissions on the subscription", async () => [
      judgePermissions(
        { name: "the subscription", id: sub, scope: "subscription", needed: actionsAt("subscription").actions },
        await permissionsAt(sub),
      ),
    ])),
  );
}

/** Quota, per region the account acts in. */
async function checkQuota({ reader, account, sub, checks }: CheckRun, scaleSets: ScaleSetBody[]): Promise<void> {
  const regions = new Set([...account.regions, ...scaleSets.map((ss) => (ss.location ?? "").toLowerCase())]);
  regions.delete("");
  for (const region of [...regions].sort()) {
    checks.push(
      ...(await guarded(`quota in ${region}`, async () => {
        const skus = await reader.list<SkuBody>(
          `${sub}/providers/Microsoft.Compute/skus?$filter=${encodeURIComponent(`location eq '${region}'`)}`,
          SKUS_API_VERSION,
        );
        const usages = await reader.list<Usage>(
          `${sub}/providers/Microsoft.Compute/locations/${region}/usages`,
          USAGES_API_VERSION,
        );
        const sizes = skus.ok ? skus.body.value.flatMap(skuSize) : [];
        return [judgeQuota(account.subscriptionId, region, needsIn(scaleSets, region), sizes, usages)];
      })),
    );
  }
}

function skuSize(s: SkuBody): SkuSize[] {
  if (!s.name) return [];
  const vCPUs = Number(s.capabilities?.find((c) => c.name === "vCPUs")?.value) || undefined;
  return [{ name: s.name, family: s.family, vCPUs }];
}

/** Each scale set of a region: its size, its capacity now and the largest it may be resized to. */
function needsIn(scaleSets: ScaleSetBody[], region: string): ServerGroupNeed[] {
  return scaleSets
    .filter((ss) => (ss.location ?? "").toLowerCase() === region)
    .map((ss) => {
      const vmss: VirtualMachineScaleSet = { location: ss.location ?? region, sku: ss.sku, tags: ss.tags };
      const c = recordedCapacity(vmss);
      return { name: ss.name ?? "?", sku: ss.sku?.name ?? "?", capacity: c.desired, max: c.max };
    });
}

/** Named networking and secrets: each can be read. */
async function checkNamedResources({ reader, account, checks }: CheckRun, scaleSets: ScaleSetBody[]): Promise<void> {
  const seen = new Set<string>();
  const named = scaleSets.flatMap(namedNetworkResources).filter((r) => {
    const key = r.id.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  for (const r of named)
    checks.push(
      ...(await guarded(`${r.kind} ${r.id}`, async () => [
        judgeNamedResource(r, (await reader.get<unknown>(r.id, NETWORK_API_VERSION)).answer),
      ])),
    );
  for (const s of namedSecrets(account)) {
    const name = s.id.split("/").pop()!;
    checks.push(
      ...(await guarded(`Key Vault secret ${name}`, async () => [
        judgeNamedResource(s, await reader.secret(account.vmAdmin!.keyVaultUrl!, name)),
      ])),
    );
  }
}

function report(account: string, checks: CheckResult[]): CheckReport {
  return { account, status: worstOf(checks), checkedAt: new Date().toISOString(), checks };
}
