// Which accounts a write forwarded to Clouddriver names, read as Clouddriver reads them, so that a principal cannot
// send on a write for an account it may not write (Clouddriver may refuse it too, but we know the caller's accounts).
//
// Clouddriver takes a description's account from `credentials` (clouddriver-security .../resources/
// CredentialsNameable.java l.31, a name or, for DefaultAllowedAccountsValidator.groovy l.58-63, a list), or from
// `account` / `accountName` (AccountNameable.getAccount(), e.g. clouddriver-cloudrun .../
// DeleteCloudrunLoadBalancerDescription.java l.25). Orca sends a description alone (POST /{cloud}/ops/{name}) or a
// list of { operationName: description } (POST /ops, /{cloud}/ops, /{cloud}/task/{id}/restart; orca
// KatoRestService.java l.25-52), and names the account in the path of a job's cancel (l.61).
import { accountsNamedIn, type AccountReference } from "./named-accounts.ts";
import { decideAccess, type AccessDecision, type Principal } from "./principal.ts";

export type NamedAccounts =
  { kind: "accounts"; references: AccountReference[] } | { kind: "unreadable"; reason: string };

/** The accounts a request names: its path's (a job's cancel) and its JSON body's (named-accounts.ts). */
export function accountsNamedBy(path: string, body: Buffer | undefined): NamedAccounts {
  const references: AccountReference[] = [];
  const job = /^\/applications\/[^/]+\/jobs\/([^/]+)\//.exec(path.split("?")[0]);
  if (job) references.push({ account: decodeURIComponent(job[1]), access: "write", field: "path" });
  const text = body?.toString("utf8").trim() ?? "";
  if (text !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: "unreadable", reason: "the body is not JSON, so the account it names cannot be read" };
    }
    const named = accountsNamedIn(parsed);
    if (named.tooDeep)
      return { kind: "unreadable", reason: "the body nests too deep for the accounts it names to be read" };
    references.push(...named.references);
  }
  return { kind: "accounts", references };
}

/**
 * May the principal forward this write? Every account it names must be one the principal may write (or read, for a
 * clone's source); a body whose
 * accounts cannot be read goes only for a principal of every account. A write that names none (a task's restart
 * details, an empty body) goes: Clouddriver decides on what it holds.
 */
export function decideForwardedWrite(principal: Principal, named: NamedAccounts): AccessDecision {
  if (principal.accounts === "*") return { ok: true };
  if (named.kind === "unreadable")
    return {
      ok: false,
      reason: `${named.reason}: only a principal of every account may forward it, and ${principal.name} is not one`,
    };
  for (const { account, access } of named.references) {
    const decision = decideAccess(principal, account, access);
    if (!decision.ok) return decision;
  }
  return { ok: true };
}
