// Spinnaker's naming convention, as Frigga parses it (com.netflix.frigga.Names, NameConstants): a server group is
// `app-stack-detail-vNNN`; its cluster is the name without the push (`-vNNN`). Orca and Clouddriver find server
// groups, clusters and applications by these rules only, so we apply exactly the same ones.

const NAME_CHARS = "a-zA-Z0-9._";
const NAME_HYPHEN_CHARS = `\\-${NAME_CHARS}~\\^`;
/** Names.PUSH_PATTERN: `^([NAME_HYPHEN_CHARS]*)-(v([0-9]{3,6}))$`. */
const PUSH_PATTERN = new RegExp(`^([${NAME_HYPHEN_CHARS}]*)-(v([0-9]{3,6}))$`);
/** Names.NAME_PATTERN: app, then optional -stack, then optional -detail (which may hold hyphens). */
const NAME_PATTERN = new RegExp(`^([${NAME_CHARS}]+)(?:-([${NAME_CHARS}]*)(?:-([${NAME_HYPHEN_CHARS}]*?))?)?$`);

export interface Moniker {
  app: string;
  cluster: string;
  stack?: string;
  detail?: string;
  sequence?: number;
}

/** Frigga's parse of a server-group or cluster name, or undefined when the name does not follow the convention. */
export function parseName(name: string): Moniker | undefined {
  if (name.trim() === "") return undefined;
  const push = PUSH_PATTERN.exec(name);
  const cluster = push ? push[1] : name;
  const parts = NAME_PATTERN.exec(cluster);
  if (!parts) return undefined;
  return {
    app: parts[1],
    cluster,
    ...(parts[2] ? { stack: parts[2] } : {}),
    ...(parts[3] ? { detail: parts[3] } : {}),
    ...(push ? { sequence: Number(push[3]) } : {}),
  };
}

/** The cluster a server group belongs to, by name alone (Frigga's getCluster). */
export function clusterOf(serverGroupName: string): string | undefined {
  return parseName(serverGroupName)?.cluster;
}

/**
 * The resource group clouddriver-azure keeps an application's resources in when nothing else is said:
 * `{application}-{region}` (AzureUtilities.getResourceGroupName), the region without spaces, lower-cased.
 */
export function defaultResourceGroupOf(application: string, region: string): string {
  return `${application}-${region.replace(/\s+/g, "").toLowerCase()}`;
}

/** Where an account keeps its server groups: its own resource group only when it says so. */
export interface ResourceGroupSettings {
  defaultResourceGroup?: string;
  serverGroupResourceGroup?: "application" | "account";
}

/** The account keeps every server group in its defaultResourceGroup (serverGroupResourceGroup: account). */
export function accountResourceGroup(account: ResourceGroupSettings): string | undefined {
  return account.serverGroupResourceGroup === "account" ? account.defaultResourceGroup : undefined;
}

/**
 * What resourceGroupOf does, in the words the OpenAPI description of `resourceGroup` and the docs use
 * (test/docs-claims.test.ts holds them to it).
 */
export const SERVER_GROUP_RESOURCE_GROUP_RULE =
  "Without resourceGroup, a server group is in {application}-{region} (as clouddriver-azure names it), or in the " +
  "account's defaultResourceGroup when the account sets serverGroupResourceGroup: account or the name follows no " +
  "Spinnaker naming convention.";

/**
 * Where a server group lives in an account: its application's `{application}-{region}`, as clouddriver-azure
 * (AzureUtilities.getResourceGroupName), unless the account keeps them all in its own resource group; for a name that
 * follows no convention, the account's default resource group. The one rule for reads and writes alike.
 */
export function resourceGroupOf(
  account: ResourceGroupSettings,
  serverGroupName: string,
  region: string,
): string | undefined {
  const own = accountResourceGroup(account);
  if (own) return own;
  const app = parseName(serverGroupName)?.app;
  return app ? defaultResourceGroupOf(app, region) : account.defaultResourceGroup;
}
