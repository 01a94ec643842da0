// A fault's type and its validation come from one schema per action (src/fault-specs.ts): what the client's type
// accepts the route accepts, and what the type refuses (a field missing, a field of another action) the route refuses
// too. The examples below are type-checked (tsc covers this file): an action added without one fails to compile,
// and each `@ts-expect-error` must be a real type error.
import t from "tap";
import { FAULT_ACTIONS, FAULT_SPECS, type FaultAction, type FaultSpec } from "../src/fault-specs.ts";
import { FaultValidationError, parseFault } from "../src/faults.ts";

const MATCH = { method: "PATCH", pathContains: "web-prod-v001" };

/** Each action's smallest fault, as the client's type has it. */
const SMALLEST: Record<FaultAction, FaultSpec> = {
  respond: { ...MATCH, status: 503, code: "ServerBusy" },
  failOperation: { ...MATCH, action: "failOperation", code: "InternalExecutionError" },
  allocationFailed: { ...MATCH, action: "allocationFailed" },
  preemptOperation: { ...MATCH, action: "preemptOperation" },
  dropConnection: { ...MATCH, action: "dropConnection" },
  outOfBandChange: { ...MATCH, action: "outOfBandChange", change: { tags: { owner: "portal-user" } } },
  failRollout: { ...MATCH, action: "failRollout" },
  evictSpot: { ...MATCH, action: "evictSpot" },
};

const refusal = (body: unknown): string => {
  try {
    parseFault(body, 0);
  } catch (err) {
    if (err instanceof FaultValidationError) return err.message;
    throw err;
  }
  return "accepted";
};

t.test("each action's smallest fault, as typed, is accepted", async (t) => {
  t.same(Object.keys(SMALLEST).sort(), [...FAULT_ACTIONS].sort(), "one per action");
  for (const action of FAULT_ACTIONS) {
    const fault = parseFault(SMALLEST[action], 0);
    t.equal(fault.action, action, action);
    t.equal(fault.count, 1, `${action}: count defaults to 1`);
  }
});

t.test("a field the schema requires is required at run time, and named", async (t) => {
  for (const action of FAULT_ACTIONS) {
    // Without its `action`, a fault is a respond (the default): that is the next test's, as a field of another action.
    for (const field of (FAULT_SPECS[action].required ?? []).filter((f) => f !== "action")) {
      const body: Record<string, unknown> = { ...SMALLEST[action] };
      delete body[field];
      t.match(refusal(body), new RegExp(`"${field}" is required for action "${action}"`), `${action} without ${field}`);
    }
  }
});

t.test("the type refuses what the route refuses", async (t) => {
  // @ts-expect-error respond answers with an ARM error: its code is required
  const noCode: FaultSpec = { ...MATCH, status: 503 };
  t.match(refusal(noCode), /"code" is required for action "respond"/);
  // @ts-expect-error failOperation ends the operation with an ARM error: its code is required
  const failWithoutCode: FaultSpec = { ...MATCH, action: "failOperation" };
  t.match(refusal(failWithoutCode), /"code" is required for action "failOperation"/);
  // @ts-expect-error a dropped connection answers nothing: no status
  const dropWithStatus: FaultSpec = { ...MATCH, action: "dropConnection", status: 500 };
  t.match(
    refusal(dropWithStatus),
    /"status" is only for actions "respond", "failOperation", "failRollout", not "dropConnection"/,
  );
  // @ts-expect-error evictions are evictSpot's (TypeScript checks a field of another action when `action` is given)
  const respondWithEvictions: FaultSpec = { ...MATCH, action: "respond", status: 503, code: "X", evictions: 1 };
  t.match(refusal(respondWithEvictions), /"evictions" is only for action "evictSpot", not "respond"/);
  // @ts-expect-error an outOfBandChange is its change
  const changeless: FaultSpec = { ...MATCH, action: "outOfBandChange" };
  t.match(refusal(changeless), /"change" is required for action "outOfBandChange"/);
});

t.test("a value out of its range is refused with what it must be", async (t) => {
  t.match(refusal({ ...SMALLEST.respond, status: 200 }), /"status" must be a whole number from 400 to 599/);
  t.match(refusal({ ...SMALLEST.respond, count: 0 }), /"count" must be a whole number from 1 to 1000000/);
  t.match(refusal({ ...SMALLEST.respond, method: "GET /" }), /"method" must be an HTTP method/);
  t.match(refusal({ ...SMALLEST.outOfBandChange, change: { capacity: -1 } }), /"change": "capacity" must be/);
  t.match(refusal({ ...SMALLEST.outOfBandChange, change: { size: 1 } }), /"change": unknown field "size"/);
  t.match(refusal({ ...SMALLEST.respond, pathContain: "x" }), /unknown field "pathContain"/);
  t.match(refusal({ ...SMALLEST.respond, action: "explode" }), /"action" must be one of respond, failOperation/);
});
