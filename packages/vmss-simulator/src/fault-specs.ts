// A fault as POST /_sim/faults takes it: one schema per action, from which both the route's validation (faults.ts)
// and the client's type (FaultSpec, control-client.ts) are derived, so that the two cannot disagree on what an
// action needs. Each field's description says what it must be; the route's messages are made of them.
import { Type, type Static, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import { MAX_CAPACITY, MIN_CAPACITY } from "./limits.ts";

/** A tag map of a change: a string sets a tag, null removes it. */
const TagChanges = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
  description: "an object of strings (null removes a tag)",
});

/** An out-of-band change, as `PATCH /_sim/scaleSets/{rg}/{name}` takes it: tags merge (null removes one). */
export const ScaleSetChangeSchema = Type.Object(
  {
    capacity: Type.Optional(
      Type.Integer({
        minimum: MIN_CAPACITY,
        maximum: MAX_CAPACITY,
        description: `a whole number from ${MIN_CAPACITY} to ${MAX_CAPACITY}`,
      }),
    ),
    tags: Type.Optional(TagChanges),
    /** Merged into the tags of every NIC configuration of the model: a network-profile edit, as in the portal. */
    nicTags: Type.Optional(TagChanges),
  },
  { additionalProperties: false, description: "an object with capacity, tags and/or nicTags" },
);
export type ScaleSetChange = Static<typeof ScaleSetChangeSchema>;

/** What every fault takes: which requests it matches, and how many times it fires. */
const MATCH = {
  method: Type.String({
    pattern: "^(\\*|[A-Za-z]+)$",
    description: 'an HTTP method such as "PATCH", or "*" for any',
  }),
  pathContains: Type.String({ description: 'a string ("" matches every path)' }),
  count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: "a whole number from 1 to 1000000" }),
  ),
};

const Status = Type.Integer({ minimum: 400, maximum: 599, description: "a whole number from 400 to 599" });
const Code = Type.String({ minLength: 1, description: "a non-empty string (an ARM error code)" });
const Message = Type.Optional(Type.String({ description: "a string" }));

/** An action's schema: its name (`action`), what every fault takes (MATCH), and its own fields. */
function fault<A extends TSchema, P extends TProperties>(action: A, properties: P) {
  return Type.Object({ action, ...MATCH, ...properties }, { additionalProperties: false });
}

/** Each action's fields. `respond` is the default action: its `action` may be left out. */
export const FAULT_SPECS = {
  /** Answer with an ARM error. */
  respond: fault(Type.Optional(Type.Literal("respond")), {
    status: Status,
    code: Code,
    message: Message,
    retryAfterSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, description: "a whole number from 0 to 86400" }),
    ),
  }),
  /** Accept the write, and end its operation Failed; `status` is the Location URL's (default 500). */
  failOperation: fault(Type.Literal("failOperation"), { status: Type.Optional(Status), code: Code, message: Message }),
  /** Fewer VMs than asked for: `allocatable` of them (default 0), the rest end Failed. */
  allocationFailed: fault(Type.Literal("allocationFailed"), {
    allocatable: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1000, description: "a whole number from 0 to 1000" }),
    ),
  }),
  /** Another writer's write preempts the operation halfway (`change`: its change; default none). */
  preemptOperation: fault(Type.Literal("preemptOperation"), { change: Type.Optional(ScaleSetChangeSchema) }),
  /** The connection is dropped. */
  dropConnection: fault(Type.Literal("dropConnection"), {}),
  /** Another writer changes the scale set just before the request is handled. */
  outOfBandChange: fault(Type.Literal("outOfBandChange"), { change: ScaleSetChangeSchema }),
  /** A Rolling set's rollout stops halfway; the write ends Failed with `code` (default InternalExecutionError). */
  failRollout: fault(Type.Literal("failRollout"), {
    status: Type.Optional(Status),
    code: Type.Optional(Code),
    message: Message,
  }),
  /** Azure evicts `evictions` running Spot VMs (default 1) just before the request is handled. */
  evictSpot: fault(Type.Literal("evictSpot"), {
    evictions: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "a whole number from 1 to 1000" })),
  }),
} satisfies Record<string, TObject>;

export type FaultAction = keyof typeof FAULT_SPECS;
export const FAULT_ACTIONS = Object.keys(FAULT_SPECS) as FaultAction[];

/** A fault as POST /_sim/faults takes it: one of the actions' schemas. */
export type FaultSpec = { [A in FaultAction]: Static<(typeof FAULT_SPECS)[A]> }[FaultAction];
