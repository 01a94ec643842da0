// Which server groups of a cluster a cluster-wide operation acts on, with Orca's semantics: a pure decision over
// what was read, apart from the loop that acts on it. Each server group gets a line for a person saying what
// happens to it and why, so that a task built from this has one history line per server group.
//
// Orca: orca-clouddriver/.../tasks/cluster/ScaleDownClusterTask.groovy (filterServerGroups, l.72-93),
// DisableClusterTask.groovy (filterServerGroups, l.50-63) and AbstractClusterWideClouddriverTask.groovy (isActive
// l.265-267; the comparators IsActive, InstanceCount, CreatedTime l.269-288).

export interface ClusterMember {
  name: string;
  /** When Azure created the scale set (ms since the epoch). */
  createdTime: number;
  /** Instances Azure lists for it. */
  instanceCount: number;
  /** Orca's isActive: not disabled, or some instance is Up. */
  active: boolean;
}

export interface ScaleDownClusterOptions {
  /** Server groups left at full size (Orca's default 1). */
  remainingFullSizeServerGroups: number;
  /** Keep the largest (most instances) rather than the newest. */
  preferLargerOverNewer: boolean;
  /** Active server groups may be scaled down too; otherwise they are never touched. */
  allowScaleDownActive: boolean;
}

export interface DisableClusterOptions {
  /** Enabled server groups left enabled (Orca's default 1). */
  remainingEnabledServerGroups: number;
  preferLargerOverNewer: boolean;
}

export interface MemberDecision {
  name: string;
  act: boolean;
  /** Why, for the task's history. */
  reason: string;
}

/** Orca's isActive (AbstractClusterWideClouddriverTask l.265-267): enabled, or serving through an instance that is Up. */
export function isActive(serverGroup: { disabled: boolean; instances: { healthState?: string }[] }): boolean {
  return !serverGroup.disabled || serverGroup.instances.some((i) => i.healthState === "Up");
}

type Comparator = (a: ClusterMember, b: ClusterMember) => number;
const activeFirst: Comparator = (a, b) => Number(b.active) - Number(a.active);
const largerFirst: Comparator = (a, b) => b.instanceCount - a.instanceCount;
const newerFirst: Comparator = (a, b) => b.createdTime - a.createdTime;

function composite(comparators: Comparator[]): Comparator {
  return (a, b) => {
    for (const c of comparators) {
      const d = c(a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
}

/** Keeps the first `keep` of `ordered` (the ones to retain, in priority order), acts on the rest. */
function retain(
  ordered: ClusterMember[],
  keep: number,
  kept: (m: ClusterMember, rank: number) => string,
  acted: (m: ClusterMember) => string,
): MemberDecision[] {
  return ordered.map((m, i) =>
    i < keep ? { name: m.name, act: false, reason: kept(m, i + 1) } : { name: m.name, act: true, reason: acted(m) },
  );
}

/**
 * ScaleDownClusterTask#filterServerGroups: active server groups are left out unless allowed; the ones left out
 * count towards those kept at full size; of the rest, the first remainingFullSizeServerGroups in priority order
 * (active first when allowed, then the largest when preferred, then the newest) are kept, the others scaled down.
 */
export function selectScaleDown(members: ClusterMember[], options: ScaleDownClusterOptions): MemberDecision[] {
  const skipped = options.allowScaleDownActive ? [] : members.filter((m) => m.active);
  const candidates = options.allowScaleDownActive ? members : members.filter((m) => !m.active);
  const keep = Math.max(0, options.remainingFullSizeServerGroups - skipped.length);
  const order = composite([
    ...(options.allowScaleDownActive ? [activeFirst] : []),
    ...(options.preferLargerOverNewer ? [largerFirst] : []),
    newerFirst,
  ]);
  const by = options.preferLargerOverNewer ? "largest" : "newest";
  const decided = retain(
    [...candidates].sort(order),
    keep,
    (m, rank) =>
      `kept at full size: ${rank === 1 ? `the ${by}` : `${ordinal(rank)} ${by}`} of those it could scale down (remainingFullSizeServerGroups ${options.remainingFullSizeServerGroups})`,
    () => "scaled down to 0",
  );
  const left = skipped.map((m) => ({
    name: m.name,
    act: false,
    reason: "left as it is: active, and allowScaleDownActive is false",
  }));
  return [...left, ...decided];
}

/**
 * DisableClusterTask#filterServerGroups: of the active server groups, the first remainingEnabledServerGroups (the
 * largest when preferred, else the newest) stay enabled; the other active ones are disabled; inactive ones are
 * left as they are. Orca sorts the largest with a stable sort and no second key; here equal sizes go newest first,
 * so the choice does not depend on the order Azure lists them in.
 */
export function selectDisable(members: ClusterMember[], options: DisableClusterOptions): MemberDecision[] {
  const active = members.filter((m) => m.active);
  const order = options.preferLargerOverNewer ? composite([largerFirst, newerFirst]) : newerFirst;
  const by = options.preferLargerOverNewer ? "largest" : "newest";
  const decided = retain(
    [...active].sort(order),
    options.remainingEnabledServerGroups,
    (m, rank) =>
      `left enabled: ${rank === 1 ? `the ${by}` : `${ordinal(rank)} ${by}`} enabled server group (remainingEnabledServerGroups ${options.remainingEnabledServerGroups})`,
    () => "disabled",
  );
  const left = members
    .filter((m) => !m.active)
    .map((m) => ({ name: m.name, act: false, reason: "left as it is: already disabled" }));
  return [...decided, ...left];
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
