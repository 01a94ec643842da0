// The ids the service makes: tasks', audit entries', and the clientRequestId a submission without one is given.
//
// UUIDv7 (RFC 9562): the time in milliseconds, then random bits, so that ids made one after another sort one after
// another. Every index keyed by one (tasks.id and client_request_id, task_history's and audit_entries' task_id,
// audit_entries.id) then takes a batch of creates on its last page, where random (v4) ids put each create on a page
// of its own: a burst's commits write half as much (docs/benchmarks.md, "Ids in time order"). What an id tells is
// when its task was created, which the task shows anyway (startTimeMs); 74 of its bits are random, so it is no
// easier to guess than a v4 id.
import { v7 } from "uuid";

/** A new id: unique, and after every id this process made before it. */
export function newId(): string {
  return v7();
}
