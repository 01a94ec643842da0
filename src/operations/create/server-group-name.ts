// The next server group name of a cluster, as clouddriver-azure's AzureServerGroupNameResolver chooses it
// (clouddriver-core AbstractServerGroupNameResolver.groovy l.68-102): start after the sequence of the server group
// created most recently, wrap at 999 back to 000, skip sequences that are taken, and fail when all 1000 are.
import { parseName } from "../../naming/frigga.ts";

/** Sequences of one cluster: v000 … v999 (SEQUENTIAL_NUMBERING_NAMESPACE_SIZE, l.31). */
export const SEQUENCE_SPACE = 1000;

/** A server group of the cluster as listed: its name and when Azure created it (timeCreated, ms). */
export interface TakenSlot {
  name: string;
  createdTime?: number;
}

/**
 * The cluster name Frigga builds (AutoScalingGroupNameBuilder): app, app-stack, app-stack-detail, or app--detail
 * when there is a detail but no stack.
 */
export function clusterName(application: string, stack?: string, detail?: string): string {
  if (detail) return `${application}-${stack ?? ""}-${detail}`;
  return stack ? `${application}-${stack}` : application;
}

export function serverGroupName(cluster: string, sequence: number): string {
  return `${cluster}-v${String(sequence).padStart(3, "0")}`;
}

export type NextName = { ok: true; name: string; sequence: number; ancestor?: string } | { ok: false; reason: string };

/**
 * The latest server group is the one created most recently (resolveLatestServerGroupName, l.52-61); when creation
 * times tie or are unknown, the one with the highest sequence. The next sequence follows it modulo 1000 (l.100-102),
 * and moves on past every taken one (l.83-91). With no server group in the cluster the first is v000 (l.69).
 */
export function nextServerGroupName(cluster: string, listed: TakenSlot[]): NextName {
  const slots = listed
    .map((s) => ({ ...s, moniker: parseName(s.name) }))
    .filter((s) => s.moniker?.cluster === cluster)
    .map((s) => ({ name: s.name, createdTime: s.createdTime ?? 0, sequence: s.moniker?.sequence }));
  const taken = new Set(slots.map((s) => s.sequence).filter((n): n is number => n !== undefined));
  const latest = slots.reduce<(typeof slots)[number] | undefined>((best, s) => {
    if (!best) return s;
    if (s.createdTime !== best.createdTime) return s.createdTime > best.createdTime ? s : best;
    return (s.sequence ?? -1) > (best.sequence ?? -1) ? s : best;
  }, undefined);
  let next = latest ? ((latest.sequence ?? 0) + 1) % SEQUENCE_SPACE : 0;
  for (let steps = 0; taken.has(next); steps++) {
    if (steps >= SEQUENCE_SPACE)
      return { ok: false, reason: `all ${SEQUENCE_SPACE} server group names of cluster ${cluster} are taken` };
    next = (next + 1) % SEQUENCE_SPACE;
  }
  return {
    ok: true,
    name: serverGroupName(cluster, next),
    sequence: next,
    ...(latest ? { ancestor: latest.name } : {}),
  };
}
