// Which VMs a scale-in removes: the scale set's `scaleInPolicy.rules` as Microsoft Learn's "Use custom scale-in
// policies with Azure Virtual Machine Scale Sets" describes them, for Uniform and Flexible alike:
// - Default: balance across availability zones (a zonal set), then across fault domains (best effort), then delete
//   the VM with the highest instance id (a Flexible VM's is its name: its creation order stands for it, as the page
//   says the highest id is "assumed to be the newest");
// - NewestVM: balance across zones, then delete the most recently created VM;
// - OldestVM: balance across zones, then delete the oldest VM.
// A VM protected from scale-in (protectFromScaleIn or protectFromScaleSetActions) is never chosen. Balancing deletes
// from the zone (fault domain) with the most VMs; it never moves one.
import { faultDomainOf } from "./flexible.ts";
import { uniformFaultDomain } from "./instance-views.ts";
import { getPath } from "./json.ts";
import { isFlexible, type ScaleSet, type Vm } from "./vmss-model.ts";

export type ScaleInRule = "Default" | "NewestVM" | "OldestVM";
const RULES: readonly ScaleInRule[] = ["Default", "NewestVM", "OldestVM"];

/** The first rule of `scaleInPolicy.rules` (the REST spec allows a list; Azure honours one), Default when none. */
export function scaleInRuleOf(ss: ScaleSet): ScaleInRule {
  const rules = getPath(ss.model, "properties", "scaleInPolicy", "rules");
  const first: unknown = Array.isArray(rules) ? rules[0] : undefined;
  return RULES.find((r) => typeof first === "string" && r.toLowerCase() === first.toLowerCase()) ?? "Default";
}

function isProtectedFromScaleIn(vm: Vm): boolean {
  return vm.protectionPolicy?.protectFromScaleIn === true || vm.protectionPolicy?.protectFromScaleSetActions === true;
}

function zoneOf(ss: ScaleSet, vm: Vm): string {
  const zones = ss.model.zones;
  return Array.isArray(zones) && zones.length > 0 ? String(zones[vm.ordinal % zones.length]) : "";
}

function faultDomain(ss: ScaleSet, vm: Vm): number {
  return isFlexible(ss) ? faultDomainOf(ss, vm) : uniformFaultDomain(ss, vm);
}

/** The candidates in the group (by `key`) that holds the most of `remaining`, among groups that have candidates. */
function fromFullestGroup(remaining: Vm[], candidates: Vm[], key: (vm: Vm) => string): Vm[] {
  const counts = new Map<string, number>();
  for (const vm of remaining) counts.set(key(vm), (counts.get(key(vm)) ?? 0) + 1);
  const most = Math.max(...candidates.map((vm) => counts.get(key(vm)) ?? 0));
  return candidates.filter((vm) => counts.get(key(vm)) === most);
}

/** The `count` VMs of `active` a scale-in removes, one at a time as the policy chooses; fewer when the rest are protected. */
export function scaleInVictims(ss: ScaleSet, active: Vm[], count: number): Vm[] {
  const rule = scaleInRuleOf(ss);
  const remaining = [...active];
  const victims: Vm[] = [];
  while (victims.length < count) {
    let candidates = remaining.filter((vm) => !isProtectedFromScaleIn(vm));
    if (candidates.length === 0) break;
    candidates = fromFullestGroup(remaining, candidates, (vm) => zoneOf(ss, vm));
    if (rule === "Default") {
      const zone = zoneOf(ss, candidates[0]);
      candidates = fromFullestGroup(
        remaining.filter((vm) => zoneOf(ss, vm) === zone),
        candidates.filter((vm) => zoneOf(ss, vm) === zone),
        (vm) => String(faultDomain(ss, vm)),
      );
    }
    // The creation order (the ordinal) is the instance id's order on Uniform, and the newest-first order on both.
    const victim = candidates.reduce((a, b) =>
      rule === "OldestVM" ? (b.ordinal < a.ordinal ? b : a) : b.ordinal > a.ordinal ? b : a,
    );
    victims.push(victim);
    remaining.splice(remaining.indexOf(victim), 1);
  }
  return victims;
}
