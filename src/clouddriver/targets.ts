// Dynamic target resolution exactly as Clouddriver's ClusterController.getTargetServerGroup does it
// (clouddriver-web controllers/ClusterController.groovy, clouddriver-core model/TargetServerGroup.groovy): filter the
// cluster's server groups by scope (region or zone) and, when asked, by enabled; drop those without createdTime; then
// pick by createdTime (or by instance count for LARGEST). Pure: candidates in, a choice or a reason out.

export type Target = "CURRENT" | "PREVIOUS" | "OLDEST" | "LARGEST" | "FAIL";

const ALIASES: Record<Target, string[]> = {
  CURRENT: ["current", "newest"],
  PREVIOUS: ["previous", "ancestor"],
  OLDEST: ["oldest"],
  LARGEST: ["largest"],
  FAIL: ["fail"],
};

/** TargetServerGroup.fromString: a name or alias, optionally with the legacy `_asg` / `_asg_dynamic` suffix. */
export function parseTarget(text: string): Target | undefined {
  const t = text.toLowerCase();
  for (const [target, names] of Object.entries(ALIASES) as [Target, string[]][]) {
    if (names.some((n) => t === n || t === `${n}_asg` || t === `${n}_asg_dynamic`)) return target;
  }
  return undefined;
}

export interface Candidate {
  name: string;
  region: string;
  zones?: string[];
  createdTime?: number;
  disabled: boolean;
  instanceCount: number;
}

export type TargetChoice<C> = { ok: true; serverGroup: C } | { ok: false; message: string };

/** ClusterController.OLDEST_TO_NEWEST; ties (same millisecond) by name, so the answer does not depend on listing order. */
function oldestToNewest(a: Candidate, b: Candidate): number {
  return a.createdTime! - b.createdTime! || a.name.localeCompare(b.name);
}

/** ClusterController.BIGGEST_TO_SMALLEST: most instances first, then newest first. */
function biggestToSmallest(a: Candidate, b: Candidate): number {
  return b.instanceCount - a.instanceCount || -oldestToNewest(a, b);
}

export function chooseTarget<C extends Candidate>(
  serverGroups: C[],
  target: Target,
  scope: string,
  options: { onlyEnabled: boolean; validateOldest: boolean },
): TargetChoice<C> {
  const candidates = serverGroups
    .filter((sg) => sg.region === scope || (sg.zones ?? []).includes(scope))
    .filter((sg) => !options.onlyEnabled || !sg.disabled)
    .filter((sg) => sg.createdTime !== undefined);
  const newestFirst = [...candidates].sort(oldestToNewest).reverse();
  const none: TargetChoice<C> = { ok: false, message: `No server groups found (location: ${scope})` };
  switch (target) {
    case "CURRENT":
      return newestFirst.length > 0 ? { ok: true, serverGroup: newestFirst[0] } : none;
    case "PREVIOUS":
      if (newestFirst.length === 1)
        return { ok: false, message: "Target not found (target: previous): the cluster has one server group" };
      return newestFirst.length > 1 ? { ok: true, serverGroup: newestFirst[1] } : none;
    case "OLDEST": {
      const oldestFirst = [...candidates].sort(oldestToNewest);
      if (options.validateOldest && oldestFirst.length === 1)
        return { ok: false, message: "Target not found (target: oldest): the cluster has one server group" };
      return oldestFirst.length > 0 ? { ok: true, serverGroup: oldestFirst[0] } : none;
    }
    case "LARGEST": {
      const largest = [...candidates].sort(biggestToSmallest);
      return largest.length > 0 ? { ok: true, serverGroup: largest[0] } : none;
    }
    case "FAIL":
      if (candidates.length > 1)
        return {
          ok: false,
          message: `More than one target found (scope: ${scope}, serverGroups: ${candidates.map((c) => c.name).join(", ")})`,
        };
      return candidates.length === 1 ? { ok: true, serverGroup: candidates[0] } : none;
  }
}
