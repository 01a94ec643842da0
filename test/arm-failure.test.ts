import t from "tap";
import { RestError } from "@azure/core-rest-pipeline";
import { createHttpHeaders } from "@azure/core-rest-pipeline";
import {
  describeArmFailure,
  failureLabel,
  LongRunningOperationError,
  RefusalError,
  parseRetryAfterMs,
} from "../src/azure/arm-failure.ts";
import { isRetryableKind } from "../src/azure/retry-policy.ts";

function restError(status: number, code: string, headers: Record<string, string> = {}) {
  return new RestError(`${code}: something`, {
    statusCode: status,
    code,
    response: { headers: createHttpHeaders(headers), status, request: {} as never },
  });
}

t.test("HTTP errors map to kinds", async (t) => {
  const table: [number, string, string][] = [
    [404, "ResourceNotFound", "notFound"],
    [409, "ConflictingConcurrentWriteNotAllowed", "conflict"],
    [409, "InvalidResourceLocation", "terminal"],
    [412, "PreconditionFailed", "precondition"],
    [429, "TooManyRequests", "throttled"],
    [408, "RequestTimeout", "server"],
    [500, "InternalServerError", "server"],
    [400, "InvalidParameter", "terminal"],
    [401, "AuthenticationFailed", "terminal"],
  ];
  for (const [status, code, kind] of table) {
    const f = describeArmFailure(restError(status, code));
    t.equal(f.kind, kind, `${status}`);
    t.equal(f.code, code);
    t.equal(failureLabel(f), `${status} ${code}`);
  }
});

t.test("Retry-After in its three forms", async (t) => {
  t.equal(describeArmFailure(restError(429, "TooManyRequests", { "retry-after": "7" })).retryAfterMs, 7000);
  t.equal(parseRetryAfterMs(createHttpHeaders({ "retry-after-ms": "250", "retry-after": "1" })), 250);
  t.equal(parseRetryAfterMs(createHttpHeaders({ "x-ms-retry-after-ms": "40" })), 40);
  const now = Date.parse("2026-01-01T00:00:00Z");
  t.equal(parseRetryAfterMs(createHttpHeaders({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  t.equal(parseRetryAfterMs(createHttpHeaders({ "retry-after": "soon" })), undefined);
  t.equal(parseRetryAfterMs(createHttpHeaders({})), undefined);
});

t.test("network failures are retryable", async (t) => {
  const err = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  t.equal(describeArmFailure(err).kind, "network");
  const send = new RestError("socket hang up", { code: "REQUEST_SEND_ERROR" });
  t.equal(describeArmFailure(send).kind, "network");
});

t.test("our own operation errors keep their kind", async (t) => {
  const f = describeArmFailure(new RefusalError("SuspiciousRead", "capacity -1", "server"));
  t.same({ kind: f.kind, code: f.code }, { kind: "server", code: "SuspiciousRead" });
  t.equal(describeArmFailure(new TypeError("x is undefined")).kind, "programming");
});

t.test("classification is by type and code, never by words in a message", async (t) => {
  // A bug in our own code that happens to mention the network profile is not a network failure.
  const bug = new TypeError("Cannot read properties of undefined (reading 'networkInterfaceConfigurations')");
  const f = describeArmFailure(bug);
  t.equal(f.kind, "programming");
  t.equal(f.code, "TypeError");
  t.equal(isRetryableKind(f.kind), false, "a programming error is never retried");
  t.equal(describeArmFailure(new ReferenceError("network is not defined")).kind, "programming");
  t.equal(describeArmFailure(new RangeError("Invalid array length")).kind, "programming");
  // A plain Error whose message mentions a network word, with no code: not a network failure either.
  t.equal(describeArmFailure(new Error("network profile mismatch")).kind, "terminal");
  t.equal(describeArmFailure(new Error("socket hang up")).kind, "terminal", "words alone never make a network failure");
  // A RestError without a status is a failure to send only when its code says so.
  t.equal(describeArmFailure(new RestError("socket hang up", { code: "ECONNRESET" })).kind, "network");
  t.equal(describeArmFailure(new RestError("Error parsing JSON", { code: "PARSE_ERROR" })).kind, "terminal");
});

t.test("a long-running operation's end is judged by its status and code, not its message", async (t) => {
  const canceled = describeArmFailure(new LongRunningOperationError("Canceled", undefined, "Operation was canceled"));
  t.equal(canceled.kind, "canceled");
  t.equal(isRetryableKind(canceled.kind), true, "a canceled write is re-read and re-planned");
  t.equal(failureLabel(canceled), "operation canceled");
  const preempted = describeArmFailure(
    new LongRunningOperationError(
      "Canceled",
      "OperationPreempted",
      "Operation execution has been preempted by a more recent operation.",
    ),
  );
  t.same({ kind: preempted.kind, code: preempted.code }, { kind: "canceled", code: "OperationPreempted" });
  const alloc = describeArmFailure(new LongRunningOperationError("Failed", "AllocationFailed", "Allocation failed."));
  t.same({ kind: alloc.kind, code: alloc.code }, { kind: "operationFailedTransient", code: "AllocationFailed" });
  const quota = describeArmFailure(new LongRunningOperationError("Failed", "QuotaExceeded", "Not enough cores."));
  t.same({ kind: quota.kind, code: quota.code }, { kind: "terminal", code: "QuotaExceeded" });
  t.equal(failureLabel(quota), "operation failed QuotaExceeded");
});
