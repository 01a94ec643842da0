// What a clone cannot take from its source because Azure never returns it on a read (osProfile.customData, each
// extension's protectedSettings), and the body did not give it. Without strict handling it is said in the history
// and in the result (notCopied); under `Prefer: handling=strict` the clone is refused at submission, before the task
// exists and so before any write, with what to give instead: strict means "do what I sent, or nothing".
import { observe } from "../../azure/observe.ts";
import { type FieldProblem } from "../description.ts";
import type { StrictContext } from "../operation.ts";
import { cloneSource, sourceLocator } from "./checks.ts";
import { scriptOf, wantsSystemIdentity } from "./deploy-input.ts";
import { type AnyCreate } from "./description.ts";
import { notCopiedFields, type ModelSpec, type NotCopied } from "./scale-set-model.ts";

/** The clone body's overrides that decide what a copy can take (cloneLimits reads them). */
export function cloneOverrides(d: AnyCreate): ModelSpec {
  const system = wantsSystemIdentity(d);
  const script = scriptOf(d);
  return {
    region: d.region,
    ...(system !== undefined ? { identity: { system } } : {}),
    ...(d.osConfig?.customData !== undefined ? { osConfig: { customData: d.osConfig.customData } } : {}),
    ...(script ? { customScriptsSettings: script } : {}),
    ...(d.healthSettings ? { healthSettings: { ...d.healthSettings, port: Number(d.healthSettings.port) } } : {}),
  };
}

/** One 400 detail per field Azure will not give the copy. */
function problemOf(entry: NotCopied, source: string): FieldProblem {
  const strict = "refused under Prefer: handling=strict";
  if (entry.remedy === "customData")
    return {
      field: "osConfig.customData",
      message: `not given, and ${source}'s custom data cannot be copied: Azure never returns osProfile.customData on a read (${strict}); give osConfig.customData ("" for none), or clone without strict handling, where it is named in the history and the result's notCopied`,
    };
  return {
    field: "source",
    message: `the protected settings of ${source}'s extension(s) ${entry.extensions?.join(", ")} cannot be copied: Azure never returns an extension's protectedSettings on a read (${strict}); give customScriptsSettings (which replaces the custom script extension) or healthSettings (the health extension) in the body, or clone without strict handling and add the others' protected settings to the new scale set`,
  };
}

/** Under strict handling: the source read now, and each field Azure would not let the copy take, as a 400 detail. */
export async function strictCloneProblems(d: AnyCreate, ctx: StrictContext): Promise<FieldProblem[]> {
  const s = cloneSource(d);
  const located = ctx.accounts.locate(sourceLocator(s));
  if (!located.ok) return located.problems.map((p) => ({ ...p, field: `source.${p.field}` }));
  const gateway = ctx.accounts.gateway(located.ref);
  const { vmss } = await observe((signal) => gateway.read({ withInstances: false, signal }), {
    retry: ctx.retry,
    signal: ctx.signal,
  });
  return notCopiedFields(vmss, cloneOverrides(d)).map((entry) => problemOf(entry, s.serverGroupName));
}
