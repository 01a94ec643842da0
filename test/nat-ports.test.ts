// A new group's inbound NAT pool takes the lowest free range of 100 frontend ports from 50000, so that the ranges of
// destroyed groups are used again; none left below Azure's highest port is a refusal that says so.
import t from "tap";
import { chooseNatRange, NAT_PORTS, takenNatPorts, type PortRange } from "../src/operations/create/nat-ports.ts";

const r = (start: number, end = start + 99): PortRange => ({ start, end });
/** The first n ranges of 100, from 50000, as groups take them one after the other. */
const firstRanges = (n: number) => Array.from({ length: n }, (_, i) => r(50000 + 100 * i));

const CASES: { what: string; taken: PortRange[]; want: PortRange | "refused" }[] = [
  { what: "an empty load balancer: the first range", taken: [], want: r(50000) },
  { what: "after the ranges taken", taken: [r(50000), r(50100)], want: r(50200) },
  { what: "a range freed by a destroy is used again", taken: [r(50000), r(50200)], want: r(50100) },
  { what: "the lowest of several gaps", taken: [r(50100), r(50300)], want: r(50000) },
  { what: "in any order", taken: [r(50300), r(50000), r(50100)], want: r(50200) },
  { what: "a gap too small is skipped", taken: [r(50000), r(50150, 50249)], want: r(50250) },
  { what: "a gap of exactly 100 fits", taken: [r(50000), r(50200)], want: r(50100) },
  { what: "ports below 50000 do not count", taken: [r(1000), r(49950, 49999)], want: r(50000) },
  { what: "a range straddling 50000", taken: [r(49990, 50009)], want: r(50010) },
  { what: "a NAT rule's single port", taken: [{ start: 50050, end: 50050 }], want: r(50051) },
  { what: "overlapping ranges", taken: [r(50000, 50150), r(50100, 50180)], want: r(50181) },
  { what: "the 155th group: the last whole range", taken: firstRanges(154), want: r(65400) },
  { what: "the 156th group: refused, no ports past 65535", taken: firstRanges(155), want: "refused" },
  {
    what: "a full load balancer with one range freed takes it",
    taken: firstRanges(155).filter((x) => x.start !== 57000),
    want: r(57000),
  },
];

t.test("the lowest free range that fits, or a refusal", async (t) => {
  for (const c of CASES) {
    const got = chooseNatRange(c.taken);
    if (c.want === "refused") {
      t.equal(got.ok, false, c.what);
      if (!got.ok)
        t.match(got.reason, /no 100 free frontend ports left for an inbound NAT pool between 50000 and 65535/);
    } else t.same(got, { ok: true, range: c.want }, c.what);
  }
  t.equal(NAT_PORTS.last, 65535, "Azure's highest frontend port");
});

t.test("the ports a load balancer holds: its NAT pools' ranges and its NAT rules' ports", async (t) => {
  t.same(
    takenNatPorts({
      inboundNatPools: [{ properties: { frontendPortRangeStart: 50000, frontendPortRangeEnd: 50099 } }, {}],
      inboundNatRules: [
        { properties: { frontendPort: 50500 } },
        { properties: { frontendPortRangeStart: 60000, frontendPortRangeEnd: 60009 } },
      ],
    }),
    [r(50000), { start: 50500, end: 50500 }, { start: 60000, end: 60009 }],
  );
});
