// The one authorization model: a principal, the accounts it may act on, and whether it may only read.
// Bearer tokens and Orca's X-SPINNAKER-* headers both end up as a Principal; every route asks the same questions.

export interface Principal {
  /** Who, for logs and error messages: a token's principal name, or Orca's X-SPINNAKER-USER. */
  name: string;
  /** "*" = every configured account. Account names compare case-insensitively, as Clouddriver's do. */
  accounts: "*" | readonly string[];
  readOnly: boolean;
  /** How the caller was identified: a static token, an OpenID Connect (Entra ID) access token, Orca's headers. */
  via: "open" | "token" | "oidc" | "spinnakerHeaders" | "token+spinnakerHeaders" | "oidc+spinnakerHeaders";
  /** For an OpenID Connect token: the token's subject (Entra ID's `oid`, else `sub`) and its issuer. */
  subject?: string;
  issuer?: string;
  /** For an OpenID Connect token: the calling application (Entra ID's `azp` or `appid`). */
  application?: string;
  /** The user Orca named in X-SPINNAKER-USER, when those headers were trusted: who Clouddriver is told acts. */
  spinnakerUser?: string;
}

/** Access control off (the default with only the simulator): every caller may do everything. */
export const OPEN_PRINCIPAL: Principal = Object.freeze({
  name: "anonymous",
  accounts: "*",
  readOnly: false,
  via: "open",
});

export function mayUseAccount(principal: Principal, account: string): boolean {
  if (principal.accounts === "*") return true;
  const wanted = account.toLowerCase();
  return principal.accounts.some((a) => a.toLowerCase() === wanted);
}

/** The accounts both may use: how Orca's headers narrow the token of the service that sends them. */
export function intersectAccounts(a: Principal["accounts"], b: Principal["accounts"]): Principal["accounts"] {
  if (a === "*") return b;
  if (b === "*") return a;
  const lower = new Set(b.map((x) => x.toLowerCase()));
  return a.filter((x) => lower.has(x.toLowerCase()));
}

export type AccessDecision = { ok: true } | { ok: false; reason: string };

/** May the principal act on (write) or read this account? The reason says why not, for the 403. */
export function decideAccess(principal: Principal, account: string, intent: "read" | "write"): AccessDecision {
  if (!mayUseAccount(principal, account)) {
    const allowed =
      principal.accounts === "*" ? "all" : principal.accounts.length > 0 ? principal.accounts.join(", ") : "none";
    return {
      ok: false,
      reason: `Access denied to account ${account}: ${principal.name} may use ${allowed === "all" ? "every account" : `only: ${allowed}`}`,
    };
  }
  if (intent === "write" && principal.readOnly)
    return { ok: false, reason: `Access denied to account ${account}: ${principal.name} may only read` };
  return { ok: true };
}
