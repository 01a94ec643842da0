// Key Vault's secrets, as much as a deploy reads: GET and PUT of a secret's current value (Key Vault REST
// api-version 7.4: `GET {vault}/secrets/{name}` → `{value, id, attributes}`). A vault here is a path,
// `/keyvaults/{vault}`, so one simulator serves ARM and its vaults; a seeded simulator has `demo-kv` holding
// clouddriver-azure's VM admin secrets (VMUsername, VMSshPublicKey).
import { ArmError } from "../arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "../context.ts";
import { parseJsonBody, send } from "../http.ts";
import { isObject } from "../json.ts";
import { sendPage } from "../paging.ts";
import type { SimState } from "../state.ts";

export const DEMO_VAULT = "demo-kv";
export const DEMO_VM_SSH_PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoVaultKeyForSimulatedVMsOnly demo@vmss-ops";

type Vaults = Map<string, Map<string, { value: string; version: number }>>;
const worlds = new WeakMap<SimState, Vaults>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const keyVaultWorlds = worlds;

function vaults(sim: Pick<SimulatorContext, "state" | "seeded">): Vaults {
  let v = worlds.get(sim.state);
  if (!v) {
    v = new Map();
    worlds.set(sim.state, v);
    if (sim.seeded) {
      v.set(
        DEMO_VAULT,
        new Map([
          ["vmusername", { value: "azureuser", version: 1 }],
          ["vmsshpublickey", { value: DEMO_VM_SSH_PUBLIC_KEY, version: 1 }],
        ]),
      );
    }
  }
  return v;
}

/** Whether the simulator holds a vault of that name (one has a secret put into it, or is the seeded demo-kv). */
export function vaultExists(sim: Pick<SimulatorContext, "state" | "seeded">, vault: string): boolean {
  return vaults(sim).has(vault.toLowerCase());
}

/**
 * Whether a vault holds a secret of that name and, when a version is named, that version: the simulator numbers a
 * secret's versions from 1 and every version up to the current one is held.
 */
export function secretExists(
  sim: Pick<SimulatorContext, "state" | "seeded">,
  vault: string,
  name: string,
  version?: string,
): boolean {
  const s = vaults(sim).get(vault.toLowerCase())?.get(name.toLowerCase());
  if (!s) return false;
  return version === undefined || version === "" || (/^[1-9][0-9]*$/.test(version) && Number(version) <= s.version);
}

function secretBody(ctx: { baseUrl: string }, vault: string, name: string, s: { value: string; version: number }) {
  return {
    value: s.value,
    id: `${ctx.baseUrl}/keyvaults/${vault}/secrets/${name}/${s.version}`,
    attributes: { enabled: true },
  };
}

const getSecret: Handler = (ctx, sim, params) => {
  const s = vaults(sim).get(params.vault.toLowerCase())?.get(params.name.toLowerCase());
  if (!s)
    throw new ArmError(
      404,
      "SecretNotFound",
      `A secret with (name/id) ${params.name} was not found in this key vault.`,
    );
  send(ctx, 200, secretBody(ctx, params.vault, params.name, s));
};

const putSecret: Handler = (ctx, sim, params) => {
  const body = parseJsonBody(ctx);
  if (!isObject(body) || typeof body.value !== "string")
    throw new ArmError(400, "BadParameter", "The secret's value is required.");
  const all = vaults(sim);
  const vault = all.get(params.vault.toLowerCase()) ?? new Map<string, { value: string; version: number }>();
  all.set(params.vault.toLowerCase(), vault);
  const s = { value: body.value, version: (vault.get(params.name.toLowerCase())?.version ?? 0) + 1 };
  vault.set(params.name.toLowerCase(), s);
  send(ctx, 200, secretBody(ctx, params.vault, params.name, s));
};

/** Key Vault's GetSecrets: each secret's id (no version) and attributes, never its value; paged with nextLink. */
const listSecrets: Handler = (ctx, sim, params) => {
  const vault = vaults(sim).get(params.vault.toLowerCase());
  const names = [...(vault?.keys() ?? [])].sort();
  sendPage(ctx, sim, names, (name) => ({
    id: `${ctx.baseUrl}/keyvaults/${params.vault}/secrets/${name}`,
    attributes: { enabled: true },
  }));
};

export function keyVaultRoutes(): [string, string, Route][] {
  return [
    ["GET", "/keyvaults/:vault/secrets", { handler: listSecrets }],
    ["GET", "/keyvaults/:vault/secrets/:name", { handler: getSecret }],
    ["PUT", "/keyvaults/:vault/secrets/:name", { handler: putSecret }],
  ];
}
