// Which accounts a write forwarded to Clouddriver names, read as Clouddriver reads them, so that a principal cannot
// send on a write for an account it may not write (Clouddriver may refuse it too, but we know the caller's accounts).
//
// Clouddriver takes a description's account from `credentials` (clouddriver-security .../resources/
// CredentialsNameable.java l.31, a name or, for DefaultAllowedAccountsValidator.groovy l.58-63, a list), or from
// `account` / `accountName` (AccountNameable.getAccount(), e.g. clouddriver-cloudrun .../
// DeleteCloudrunLoadBalancerDescription.java l.25). Orca sends a description alone (POST /{cloud}/ops/{name}) or a
// list of { operationName: description } (POST /ops, /{cloud}/ops, /{cloud}/task/{id}/restart; orca
// KatoRestService.java l.25-52), and names the account in the path of a job's cancel (l.61).
import { decideAccess, type AccessDecision, type Principal } from "./principal.ts";

export type NamedAccounts = { kind: "accounts"; accounts: string[] } | { kind: "unreadable"; reason: string };

const ACCOUNT_FIELDS = ["credentials", "account", "accountName"] as const;

function accountsOfDescription(description: unknown, into: Set<string>): void {
  if (typeof description !== "object" || description === null || Array.isArray(description)) return;
  for (const field of ACCOUNT_FIELDS) {
    const value = (description as Record<string, unknown>)[field];
    for (const name of Array.isArray(value) ? value : [value]) if (typeof name === "string" && name) into.add(name);
  }
}

/** The accounts a request names: its path's (a job's cancel) and its JSON body's, in each shape Orca sends. */
export function accountsNamedBy(path: string, body: Buffer | undefined): NamedAccounts {
  const accounts = new Set<string>();
  const job = /^\/applications\/[^/]+\/jobs\/([^/]+)\//.exec(path.split("?")[0]);
  if (job) accounts.add(decodeURIComponent(job[1]));
  const text = body?.toString("utf8").trim() ?? "";
  if (text !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: "unreadable", reason: "the body is not JSON, so the account it names cannot be read" };
    }
    if (Array.isArray(parsed)) {
      // A list of operations: [{ resizeServerGroup: {...} }, …]; a bare description in a list is read too.
      for (const item of parsed) {
        accountsOfDescription(item, accounts);
        if (typeof item === "object" && item !== null && !Array.isArray(item))
          for (const description of Object.values(item as Record<string, unknown>))
            accountsOfDescription(description, accounts);
      }
    } else accountsOfDescription(parsed, accounts);
  }
  return { kind: "accounts", accounts: [...accounts] };
}

/**
 * May the principal forward this write? Every account it names must be one the principal may write; a body whose
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
  for (const account of named.accounts) {
    const decision = decideAccess(principal, account, "write");
    if (!decision.ok) return decision;
  }
  return { ok: true };
}
