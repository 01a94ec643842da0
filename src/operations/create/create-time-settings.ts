// Settings a scale set is created with that Deck and clouddriver-azure have no field for (neither knows Spot, rolling
// upgrades, automatic repairs or the scale-in policy): taken under the names of Azure's REST API (`az vmss create`'s
// for Spot's priority, eviction policy and max price), and checked against each other before anything is written,
// with the rules Azure applies to them:
// - Spot: evictionPolicy and maxPrice only for Spot (or Low) priority VMs; maxPrice -1 (pay up to the on-demand
//   price) or above 0 (REST spec: VirtualMachineScaleSetVMProfile.billingProfile, BillingProfile.maxPrice).
// - Rolling: a rolling upgrade needs health to watch between batches, and automatic repairs need health to judge by
//   ("Rolling Upgrade mode is not supported for this Virtual Machine Scale Set because a health probe or health
//   extension was not provided"; Microsoft Learn, "Automatic instance repairs": the Application Health extension or a
//   load balancer health probe). The models made here name no load-balancer health probe (networkProfile.healthProbe),
//   so both need the Application Health extension: healthSettings.
// - Repairs: a grace period from 10 to 90 minutes (Microsoft Learn: "The grace period … minimum 10 minutes, maximum
//   90 minutes"; Azure's default 30).
// - Zones: Deck's zonesEnabled false means no zones whatever `zones` holds (serverGroup.transformer.js l.109-110).
// A clone keeps what its source has where the description gives nothing, so the rules that need the whole set are
// checked against the model once it is built (the scale set's own checks), not here.
import { Type } from "@sinclair/typebox";
import type { FieldProblem } from "../description.ts";
import type { ModelSpec } from "./scale-set-model.ts";

const Percent = (minimum: number, description: string) => Type.Integer({ minimum, maximum: 100, description });
const Duration = (description: string) =>
  Type.String({ pattern: "^PT(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?$", maxLength: 20, description });

export const createTimeSettingFields = {
  rollingUpgradePolicy: Type.Optional(
    Type.Object(
      {
        maxBatchInstancePercent: Type.Optional(Percent(5, "VMs upgraded at once, % of the set (Azure's default 20)")),
        maxUnhealthyInstancePercent: Type.Optional(
          Percent(5, "unhealthy VMs, % of the set, at which the upgrade stops (default 20)"),
        ),
        maxUnhealthyUpgradedInstancePercent: Type.Optional(
          Percent(0, "upgraded VMs found unhealthy, %, at which the upgrade stops (default 20)"),
        ),
        pauseTimeBetweenBatches: Type.Optional(Duration("ISO 8601, e.g. PT30S (default PT0S)")),
        prioritizeUnhealthyInstances: Type.Optional(Type.Boolean()),
        maxSurge: Type.Optional(Type.Boolean({ description: "new VMs first, then the old ones deleted" })),
        rollbackFailedInstancesOnPolicyBreach: Type.Optional(Type.Boolean()),
      },
      {
        additionalProperties: false,
        description: "Azure's upgradePolicy.rollingUpgradePolicy; with upgradePolicy Rolling",
      },
    ),
  ),
  automaticRepairsPolicy: Type.Optional(
    Type.Object(
      {
        enabled: Type.Boolean(),
        gracePeriod: Type.Optional(Duration("ISO 8601, PT10M to PT90M (Azure's default PT30M)")),
        repairAction: Type.Optional(
          Type.Union([Type.Literal("Replace"), Type.Literal("Restart"), Type.Literal("Reimage")], {
            description: "Azure's default Replace",
          }),
        ),
      },
      { additionalProperties: false, description: "Azure's automaticRepairsPolicy; needs healthSettings" },
    ),
  ),
  scaleInPolicy: Type.Optional(
    Type.Object(
      {
        rules: Type.Optional(
          Type.Array(Type.Union([Type.Literal("Default"), Type.Literal("OldestVM"), Type.Literal("NewestVM")]), {
            minItems: 1,
            maxItems: 1,
            description: "which VMs a scale-in removes (Azure honours one rule)",
          }),
        ),
        forceDeletion: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false, description: "Azure's scaleInPolicy" },
    ),
  ),
  priority: Type.Optional(
    Type.Union([Type.Literal("Regular"), Type.Literal("Spot"), Type.Literal("Low")], {
      description: "the VMs' priority (Azure's default Regular); Spot VMs can be evicted",
    }),
  ),
  evictionPolicy: Type.Optional(
    Type.Union([Type.Literal("Deallocate"), Type.Literal("Delete")], {
      description: "what an eviction does to a Spot VM (Azure's default Deallocate)",
    }),
  ),
  maxPrice: Type.Optional(
    Type.Number({
      minimum: -1,
      description: "a Spot VM's highest price per hour in US dollars; -1: up to the on-demand price (the default)",
    }),
  ),
};

/** The fields of createTimeSettingFields, as a description holds them. */
export interface CreateTimeSettings {
  upgradePolicy?: "Automatic" | "Manual" | "Rolling";
  rollingUpgradePolicy?: ModelSpec["rollingUpgradePolicy"];
  automaticRepairsPolicy?: ModelSpec["automaticRepairsPolicy"];
  scaleInPolicy?: ModelSpec["scaleInPolicy"];
  priority?: "Regular" | "Spot" | "Low";
  evictionPolicy?: "Deallocate" | "Delete";
  maxPrice?: number;
  healthSettings?: unknown;
  zonesEnabled?: boolean;
  zones?: string[];
}

function minutes(duration: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(duration);
  if (!m) return NaN;
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) + Number(m[3] ?? 0) / 60;
}

/** What the settings cannot be together, field by field (a clone's: only what holds whatever its source has). */
export function createTimeSettingProblems(d: CreateTimeSettings, options: { clone: boolean }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const spot = d.priority === "Spot" || d.priority === "Low";
  const priorityKnown = d.priority !== undefined || !options.clone;
  if (priorityKnown && !spot) {
    for (const field of ["evictionPolicy", "maxPrice"] as const)
      if (d[field] !== undefined)
        problems.push({
          field,
          message: `applies only to Spot VMs: set priority to Spot (it is ${d.priority ?? "Regular"})`,
        });
  }
  if (d.maxPrice !== undefined && d.maxPrice !== -1 && !(d.maxPrice > 0))
    problems.push({
      field: "maxPrice",
      message: `must be -1 (up to the on-demand price) or above 0, not ${d.maxPrice}`,
    });
  const upgradeKnown = d.upgradePolicy !== undefined || !options.clone;
  if (d.rollingUpgradePolicy && upgradeKnown && d.upgradePolicy !== "Rolling")
    problems.push({
      field: "rollingUpgradePolicy",
      message: `applies only with upgradePolicy Rolling (it is ${d.upgradePolicy ?? "Manual"})`,
    });
  if (!options.clone && !d.healthSettings) {
    if (d.upgradePolicy === "Rolling")
      problems.push({
        field: "healthSettings",
        message:
          "required with upgradePolicy Rolling: Azure upgrades batch by batch only where it can watch health (the Application Health extension)",
      });
    if (d.automaticRepairsPolicy?.enabled)
      problems.push({
        field: "healthSettings",
        message:
          "required with automaticRepairsPolicy enabled: Azure repairs only the VMs it sees unhealthy (the Application Health extension)",
      });
  }
  const grace = d.automaticRepairsPolicy?.gracePeriod;
  if (grace !== undefined && !(minutes(grace) >= 10 && minutes(grace) <= 90))
    problems.push({
      field: "automaticRepairsPolicy.gracePeriod",
      message: `must be from PT10M to PT90M (Azure's bounds), not ${grace}`,
    });
  return problems;
}

/** The zones asked for: none when zonesEnabled is false (Deck's switch), undefined when none are named. */
export function zonesOf(d: Pick<CreateTimeSettings, "zones" | "zonesEnabled">): string[] | undefined {
  if (d.zonesEnabled === false) return [];
  return d.zones && d.zones.length > 0 ? [...d.zones] : undefined;
}

/** The model's share of these settings. */
export function createTimeSpec(d: CreateTimeSettings): Partial<ModelSpec> {
  return {
    ...(d.rollingUpgradePolicy ? { rollingUpgradePolicy: d.rollingUpgradePolicy } : {}),
    ...(d.automaticRepairsPolicy ? { automaticRepairsPolicy: d.automaticRepairsPolicy } : {}),
    ...(d.scaleInPolicy ? { scaleInPolicy: d.scaleInPolicy } : {}),
    ...(d.priority || d.evictionPolicy || d.maxPrice !== undefined
      ? {
          spot: {
            priority: d.priority ?? "Spot",
            ...(d.evictionPolicy ? { evictionPolicy: d.evictionPolicy } : {}),
            ...(d.maxPrice !== undefined ? { maxPrice: d.maxPrice } : {}),
          },
        }
      : {}),
  };
}
