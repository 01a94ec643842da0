// What a create or clone description must hold beyond its schema, checked before any read.
import { createTimeSettingProblems } from "./create-time-settings.ts";
import { type FieldProblem } from "../description.ts";
import { clusterName } from "./server-group-name.ts";
import { parseName } from "../../naming/frigga.ts";
import { deployProblems } from "./deploy-input.ts";
import { type AnyCreate } from "./description.ts";

/** The name of a clone's source: serverGroupName, or Orca's asgName. */
export function sourceName(d: AnyCreate): string | undefined {
  return d.source?.serverGroupName ?? d.source?.asgName;
}

/** A clone names its source by serverGroupName or asgName (Orca sends both, the same); not two different ones. */
function sourceNameProblems(d: AnyCreate): FieldProblem[] {
  const s = d.source;
  if (!s) return [];
  if (s.serverGroupName === undefined && s.asgName === undefined)
    return [{ field: "source.serverGroupName", message: "required: the server group to copy (or source.asgName)" }];
  if (s.serverGroupName !== undefined && s.asgName !== undefined && s.serverGroupName !== s.asgName)
    return [
      {
        field: "source.asgName",
        message: `names ${s.asgName}, but source.serverGroupName names ${s.serverGroupName}: one source, named once or the same twice`,
      },
    ];
  return [];
}

/** The clone's source: its name checked by checkClone, the rest required by its schema. */
export function cloneSource(d: AnyCreate): {
  account: string;
  region: string;
  serverGroupName: string;
  resourceGroup?: string;
} {
  const s = d.source!;
  return {
    account: s.account!,
    region: s.region!,
    serverGroupName: sourceName(d)!,
    ...(s.resourceGroup ? { resourceGroup: s.resourceGroup } : {}),
  };
}

/** The application of the new group: given, or (a clone) the source's. */
function applicationOf(d: AnyCreate): string {
  const source = sourceName(d);
  return d.application ?? (source ? parseName(source)?.app : undefined) ?? "";
}

/** The cluster the new group joins: named by the description, or (a clone without naming fields) its source's. */
export function clusterOfNewGroup(d: AnyCreate): string {
  const source = sourceName(d);
  if (d.application === undefined && source && d.stack === undefined && d.detail === undefined) {
    // A clone without naming fields stays in its source's cluster.
    return parseName(source)?.cluster ?? source;
  }
  return clusterName(applicationOf(d), d.stack || undefined, d.detail || undefined);
}

function commonProblems(d: AnyCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (d.osConfig?.adminPassword !== undefined) {
    problems.push({
      field: "osConfig.adminPassword",
      message:
        "a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv",
    });
  }
  const cluster = clusterOfNewGroup(d);
  if (`${cluster}-v000`.length > 64)
    problems.push({
      field: "detail",
      message: `the server group name ${cluster}-vNNN would exceed Azure's 64 characters`,
    });
  if (d.subnet && !d.vnet)
    problems.push({ field: "vnet", message: "required with subnet: the virtual network the subnet is in" });
  if (d.vnet && !d.subnet && !d.subnetId)
    problems.push({ field: "subnet", message: "required with vnet: the subnet's name" });
  if (d.subnetId && d.subnet) problems.push({ field: "subnet", message: "give subnetId or vnet and subnet, not both" });
  if (d.loadBalancerType === "Azure Application Gateway" && !d.appGatewayName && !d.loadBalancerName) {
    problems.push({ field: "appGatewayName", message: "required with loadBalancerType Azure Application Gateway" });
  }
  return problems;
}

export function checkCreate(d: AnyCreate): FieldProblem[] {
  const problems = [
    ...commonProblems(d),
    ...deployProblems(d, { clone: false }),
    ...createTimeSettingProblems(d, { clone: false }),
  ];
  if (!d.subnetId && !d.subnet)
    problems.push({ field: "subnet", message: "required: vnet and subnet (by name, as Deck sends them), or subnetId" });
  return problems;
}

export function checkClone(d: AnyCreate): FieldProblem[] {
  return [
    ...sourceNameProblems(d),
    ...commonProblems(d),
    ...deployProblems(d, { clone: true }),
    ...createTimeSettingProblems(d, { clone: true }),
  ];
}

/** A named source as the accounts locate a server group: its account, region, name and resource group when given. */
export function sourceLocator(s: { account: string; region: string; serverGroupName: string; resourceGroup?: string }) {
  return {
    credentials: s.account,
    region: s.region,
    serverGroupName: s.serverGroupName,
    ...(s.resourceGroup ? { resourceGroup: s.resourceGroup } : {}),
  };
}
