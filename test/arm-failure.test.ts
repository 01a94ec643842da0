import t from "tap";
import { RestError } from "@azure/core-rest-pipeline";
import { createHttpHeaders } from "@azure/core-rest-pipeline";
import { describeArmFailure, failureLabel, OperationError, parseRetryAfterMs } from "../src/azure/arm-failure.ts";

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

t.test("a failed long-running operation is judged by its code", async (t) => {
  const transient = describeArmFailure(new Error("The long-running operation has failed. OperationPreempted. Preempted by a higher priority operation."));
  t.equal(transient.kind, "operationFailedTransient");
  t.equal(transient.code, "OperationPreempted");
  t.equal(transient.message, "Preempted by a higher priority operation.");
  const conflict = describeArmFailure(new Error("The long-running operation has failed. ConflictingConcurrentWriteNotAllowed. Retry later."));
  t.equal(conflict.kind, "operationFailedTransient");
  const final = describeArmFailure(new Error("The long-running operation has failed. QuotaExceeded. Not enough cores."));
  t.equal(final.kind, "terminal");
  t.equal(final.code, "QuotaExceeded");
});

t.test("network failures are retryable", async (t) => {
  const err = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  t.equal(describeArmFailure(err).kind, "network");
  const send = new RestError("socket hang up", { code: "REQUEST_SEND_ERROR" });
  t.equal(describeArmFailure(send).kind, "network");
});

t.test("our own operation errors keep their kind", async (t) => {
  const f = describeArmFailure(new OperationError("SuspiciousRead", "capacity -1", "server"));
  t.same({ kind: f.kind, code: f.code }, { kind: "server", code: "SuspiciousRead" });
  t.equal(describeArmFailure(new TypeError("x is undefined")).kind, "terminal");
});
