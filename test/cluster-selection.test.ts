// Which server groups scaleDownCluster and disableCluster act on: Orca's selection, table-driven over what a read
// found, without a clock or a server.
//
// Orca (spinnaker/orca 2fdb327), orca-clouddriver/.../tasks/cluster/:
//   ScaleDownClusterTask.groovy l.36-40 defaults (remainingFullSizeServerGroups 1, preferLargerOverNewer false,
//     allowScaleDownActive false); l.72-93 filterServerGroups: active ones left out unless allowed (l.75), those left
//     out count towards the ones kept (l.78), priority IsActive (when allowed), InstanceCount (when preferred),
//     CreatedTime (l.79-85), the first dropCount retained (l.92)
//   DisableClusterTask.groovy l.34-37 defaults (remainingEnabledServerGroups 1); l.50-63 filterServerGroups: only
//     active ones (l.56), the newest or the largest (l.58-60) stay enabled (l.62)
//   AbstractClusterWideClouddriverTask.groovy l.265-267 isActive: disabled == false || an instance is Up
// The scale-down cases are the rows of ScaleDownClusterTaskSpec.groovy l.56-64, with its sg() of l.73-77: each new
// server group is newer than the one before, and has instances + 1 instances, Up unless disabled.
import t from "tap";
import { isActive, selectDisable, selectScaleDown, type ClusterMember } from "../src/operations/cluster-selection.ts";

let created = 0;
/** Orca's sg(disabled, instances) (ScaleDownClusterTaskSpec l.73-77). */
function sg(disabled = false, instances = 10): ClusterMember {
  created++;
  const list = Array.from({ length: instances + 1 }, () => ({ healthState: disabled ? "OutOfService" : "Up" }));
  return {
    name: `foo-v${String(created).padStart(3, "0")}`,
    createdTime: created * 1000,
    instanceCount: list.length,
    active: isActive({ disabled, instances: list }),
  };
}

const acted = (decisions: { name: string; act: boolean }[]) => decisions.filter((d) => d.act).map((d) => d.name);
const scaleDownDefaults = {
  remainingFullSizeServerGroups: 1,
  preferLargerOverNewer: false,
  allowScaleDownActive: false,
};

t.test("isActive: enabled, or an instance Up (AbstractClusterWideClouddriverTask l.265-267)", async (t) => {
  t.equal(isActive({ disabled: false, instances: [] }), true);
  t.equal(isActive({ disabled: true, instances: [{ healthState: "OutOfService" }] }), false);
  t.equal(isActive({ disabled: true, instances: [{ healthState: "Up" }] }), true, "disabled, but still serving");
});

t.test("scaleDownCluster: the rows of ScaleDownClusterTaskSpec l.56-64", async (t) => {
  const rows: [string, Partial<typeof scaleDownDefaults>, boolean[] | [boolean, number][], number[]][] = [
    ["l.57-59: two active, active not allowed: nothing", {}, [false, false], []],
    ["l.60: the active one counts as the one kept; the disabled one goes", {}, [false, true], [1]],
    [
      "l.61: active allowed: the newest is kept, the older scaled down",
      { allowScaleDownActive: true },
      [false, false],
      [0],
    ],
    ["l.62: a disabled older one goes, the active newer one stays", {}, [true, false], [0]],
    [
      "l.63: preferLargerOverNewer: the larger (older) one is kept",
      { preferLargerOverNewer: true },
      [
        [true, 10],
        [true, 9],
      ],
      [1],
    ],
  ];
  for (const [label, options, spec, expectedIdx] of rows) {
    const groups = spec.map((s) => (Array.isArray(s) ? sg(s[0], s[1]) : sg(s)));
    const decisions = selectScaleDown(groups, { ...scaleDownDefaults, ...options });
    t.same(
      acted(decisions),
      expectedIdx.map((i) => groups[i].name),
      label,
    );
    t.equal(decisions.length, groups.length, `${label}: one line per server group`);
  }
});

t.test("scaleDownCluster: the newest kept by default, every other inactive one scaled down", async (t) => {
  const [a, b, c] = [sg(true), sg(true), sg(true)];
  const decisions = selectScaleDown([b, c, a], scaleDownDefaults);
  t.same(acted(decisions), [b.name, a.name]);
  t.match(decisions.find((d) => d.name === c.name)!.reason, /^kept at full size: the newest/);
  t.same(
    decisions.filter((d) => d.act).map((d) => d.reason),
    ["scaled down to 0", "scaled down to 0"],
  );
});

t.test("scaleDownCluster: remainingFullSizeServerGroups 2 keeps the two newest", async (t) => {
  const [a, b, c] = [sg(true), sg(true), sg(true)];
  t.same(acted(selectScaleDown([a, b, c], { ...scaleDownDefaults, remainingFullSizeServerGroups: 2 })), [a.name]);
});

t.test("scaleDownCluster: active ones are skipped unless allowed, and say why", async (t) => {
  const [old, current] = [sg(false), sg(false)];
  const skipped = selectScaleDown([old, current], scaleDownDefaults);
  t.same(acted(skipped), []);
  t.ok(skipped.every((d) => /active, and allowScaleDownActive is false/.test(d.reason)));
  t.same(acted(selectScaleDown([old, current], { ...scaleDownDefaults, allowScaleDownActive: true })), [old.name]);
});

t.test(
  "scaleDownCluster: with active allowed, an active one is kept before a newer inactive one (IsActive first)",
  async (t) => {
    const [active, disabledNewer] = [sg(false), sg(true)];
    t.same(acted(selectScaleDown([active, disabledNewer], { ...scaleDownDefaults, allowScaleDownActive: true })), [
      disabledNewer.name,
    ]);
  },
);

t.test("a cluster of one is left alone, active or not, allowed or not", async (t) => {
  for (const disabled of [false, true]) {
    for (const allowScaleDownActive of [false, true]) {
      const only = sg(disabled);
      t.same(
        acted(selectScaleDown([only], { ...scaleDownDefaults, allowScaleDownActive })),
        [],
        `scale down: disabled ${disabled}, allowed ${allowScaleDownActive}`,
      );
      t.same(
        acted(selectDisable([only], { remainingEnabledServerGroups: 1, preferLargerOverNewer: false })),
        [],
        `disable: disabled ${disabled}`,
      );
    }
  }
});

t.test(
  "disableCluster: the newest enabled stays enabled; other enabled ones are disabled; disabled ones left",
  async (t) => {
    const [a, b, off, c] = [sg(false), sg(false), sg(true), sg(false)];
    const decisions = selectDisable([a, b, off, c], { remainingEnabledServerGroups: 1, preferLargerOverNewer: false });
    t.same(acted(decisions), [b.name, a.name], "newest first, so the older ones in that order");
    t.match(decisions.find((d) => d.name === c.name)!.reason, /^left enabled: the newest/);
    t.match(decisions.find((d) => d.name === off.name)!.reason, /already disabled/);
  },
);

t.test("disableCluster: preferLargerOverNewer keeps the largest enabled (DisableClusterTask l.58-60)", async (t) => {
  const [big, small] = [sg(false, 20), sg(false, 3)];
  t.same(acted(selectDisable([big, small], { remainingEnabledServerGroups: 1, preferLargerOverNewer: true })), [
    small.name,
  ]);
  t.same(
    acted(selectDisable([big, small], { remainingEnabledServerGroups: 1, preferLargerOverNewer: false })),
    [big.name],
    "without it, the newer small one stays",
  );
});

t.test("disableCluster: remainingEnabledServerGroups counts enabled ones only (l.54, l.56)", async (t) => {
  const [a, off, b] = [sg(false), sg(true), sg(false)];
  t.same(
    acted(selectDisable([a, off, b], { remainingEnabledServerGroups: 2, preferLargerOverNewer: false })),
    [],
    "both enabled ones stay",
  );
  t.same(
    acted(selectDisable([a, off, b], { remainingEnabledServerGroups: 0, preferLargerOverNewer: false })).sort(),
    [a.name, b.name].sort(),
  );
});
