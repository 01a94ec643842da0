// Snapshots in the shape Azure really sends, taken from the recorded exchanges in test/fixtures/azure-recordings/,
// turned into what @azure/arm-compute hands the service: the SDK lifts every `properties` object into its parent
// (x-ms-client-flatten on the scale set, its VMs, NIC and IP configurations), and the ETag comes from the header.
import { readFileSync } from "node:fs";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import type { ScaleSetSnapshot } from "../../src/azure/vmss-gateway.ts";
import type { Json } from "../../testkit/json.ts";

interface Entry {
  RequestMethod: string;
  RequestUri: string;
  StatusCode: number;
  ResponseBody: unknown;
  ResponseHeaders?: Record<string, string>;
}

const cache = new Map<string, Entry[]>();

export function recordedEntry(file: string, index: number): Entry {
  if (!cache.has(file)) {
    const url = new URL(`../fixtures/azure-recordings/${file}.json`, import.meta.url);
    cache.set(file, (JSON.parse(readFileSync(url, "utf8")) as { entries: Entry[] }).entries);
  }
  const entry = cache.get(file)![index];
  if (!entry) throw new Error(`${file}[${index}] is not recorded`);
  return entry;
}

/** The SDK's view of a wire body: `properties` lifted into the object that holds it, at every depth. */
export function fromWire(value: unknown): Json {
  if (Array.isArray(value)) return value.map(fromWire);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "properties" && v && typeof v === "object" && !Array.isArray(v)) Object.assign(out, fromWire(v));
    else out[k] = fromWire(v);
  }
  return out;
}

/** A recorded scale set GET/PATCH response as the SDK returns it, with changes (e.g. provisioningState) on top. */
export function recordedScaleSet(
  file: string,
  index: number,
  changes: Partial<VirtualMachineScaleSet> = {},
): VirtualMachineScaleSet {
  const entry = recordedEntry(file, index);
  const vmss = fromWire(entry.ResponseBody) as VirtualMachineScaleSet;
  const etag = entry.ResponseHeaders?.ETag;
  return structuredClone({ ...vmss, ...(etag ? { etag } : {}), ...changes });
}

/** A recorded VM of a scale set, as the SDK returns it; instanceId and state may be changed to build a list. */
export function recordedVm(
  file: string,
  index: number,
  changes: Partial<VirtualMachineScaleSetVM> = {},
): VirtualMachineScaleSetVM {
  return structuredClone({
    ...(fromWire(recordedEntry(file, index).ResponseBody) as VirtualMachineScaleSetVM),
    ...changes,
  });
}

/** The Python recording's scale set (capacity 1, Manual upgrade policy, api 2023-09-01: no ETag) and its VM 0. */
export const PY = "vmss-vm-ops-python-2023-12";
export const PY_SCALE_SET = 14;
export const PY_VM = 16;

/** A snapshot built from the recorded scale set, with `count` copies of its recorded VM in the given states. */
export function recordedSnapshot(
  vmss: Partial<VirtualMachineScaleSet>,
  vmStates: string[],
  etag: string | undefined = '"7"',
): ScaleSetSnapshot {
  const base = recordedScaleSet(PY, PY_SCALE_SET, { etag, ...vmss });
  return {
    vmss: base,
    etag: base.etag,
    vms: vmStates.map((state, i) =>
      recordedVm(PY, PY_VM, { instanceId: String(i), name: `${base.name}_${i}`, provisioningState: state }),
    ),
  };
}
