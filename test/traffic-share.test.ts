// The share a partial disable takes out, decided as Clouddriver decides it: EnableDisablePercentageCategorizer's own
// table (spinnaker/clouddriver clouddriver-core/src/test/groovy/…/helpers/EnableDisablePercentageCategorizerSpec.groovy
// l.39-57: already out, still in, percent → how many to take out), with AbstractEurekaSupport.groovy l.304-336's rule
// that only an instance serving healthy traffic is taken out.
import t from "tap";
import { planShare, type ShareInstance } from "../src/operations/traffic-share.ts";

const instances = (out: number, serving: number): ShareInstance[] => [
  ...Array.from({ length: out }, (_, i) => ({ name: `out-${String(i).padStart(2, "0")}`, serving: false })),
  ...Array.from({ length: serving }, (_, i) => ({ name: `in-${String(i).padStart(2, "0")}`, serving: true })),
];

t.test("EnableDisablePercentageCategorizerSpec's table: how many are taken out", async (t) => {
  const table: [out: number, serving: number, percent: number, takeOut: number][] = [
    [0, 4, 100, 4],
    [0, 4, 25, 1],
    [0, 7, 10, 1],
    [4, 0, 100, 0],
    [3, 0, 10, 0],
    [9, 0, 60, 0],
    [0, 0, 0, 0],
    [0, 0, 100, 0],
    [0, 0, 40, 0],
    [9, 9, 60, 2],
    [7, 3, 10, 0],
    [4, 4, 100, 4],
    [5, 10, 0, 0],
    [9, 10, 90, 9],
    [0, 3, 33, 1],
  ];
  for (const [out, serving, percent, takeOut] of table) {
    const plan = planShare(instances(out, serving), percent);
    t.equal(plan.takeOut.length, takeOut, `${out} out, ${serving} in, ${percent} % → ${takeOut}`);
    t.ok(
      plan.takeOut.every((n) => n.startsWith("in-")),
      "only serving instances are taken out",
    );
  }
});

t.test(
  "rolling red/black's steps on 4 instances: 10, 50, 100 % take out 1, then 1 more, then the other 2",
  async (t) => {
    let group = instances(0, 4);
    const steps: string[][] = [];
    for (const p of [10, 50, 100]) {
      const { takeOut } = planShare(group, p);
      steps.push(takeOut);
      group = group.map((i) => (takeOut.includes(i.name) ? { ...i, serving: false } : i));
    }
    t.same(steps, [["in-00"], ["in-01"], ["in-02", "in-03"]], "in name order, each step only what is missing");
    t.same(
      planShare(group, 50),
      { total: 4, wanted: 2, out: ["in-00", "in-01", "in-02", "in-03"], takeOut: [] },
      "a share asked again once more is out: nothing (a retried or resumed attempt never takes out twice)",
    );
  },
);

t.test("health-gated: an unhealthy (not serving) instance counts toward the share and is never chosen", async (t) => {
  const group: ShareInstance[] = [
    { name: "vm-a", serving: true },
    { name: "vm-b", serving: false }, // failing its probe, or stopped
    { name: "vm-c", serving: true },
    { name: "vm-d", serving: true },
  ];
  t.same(planShare(group, 25).takeOut, [], "25 % of 4 is 1, and vm-b serves nothing already");
  t.same(planShare(group, 50).takeOut, ["vm-a"]);
  t.same(planShare(group, 100).takeOut, ["vm-a", "vm-c", "vm-d"]);
});

t.test("a percentage outside [0, 100] or not whole is an error, not a guess", async (t) => {
  for (const p of [-1, 101, 12.5]) t.throws(() => planShare(instances(0, 2), p), RangeError, String(p));
});
