// Which configured principal an OpenID Connect token is: the first, in the file's order, whose `oidc` match the
// token's claims meet (any of its app roles, groups, calling applications or object ids). First match, not a union:
// one principal's accounts and read-only flag apply as written, and the file reads top to bottom like a rule list.
import type { JWTPayload } from "jose";
import type { OidcMatch, PrincipalConfig } from "./access-config.ts";
import type { Principal } from "./principal.ts";

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The calling application: `azp` in v2.0 tokens, `appid` in v1.0 ones. */
export function applicationOf(claims: JWTPayload): string | undefined {
  return stringsOf(claims.azp)[0] ?? stringsOf(claims.appid)[0];
}

/** Who the token is about: Entra ID's object id (stable across applications), else `sub`. */
export function subjectOf(claims: JWTPayload): string | undefined {
  return stringsOf(claims.oid)[0] ?? claims.sub;
}

export function matches(match: OidcMatch, claims: JWTPayload): boolean {
  const any = (wanted: string[] | undefined, held: string[]) => wanted?.some((w) => held.includes(w)) ?? false;
  const application = applicationOf(claims);
  const objectId = stringsOf(claims.oid)[0];
  return (
    any(match.roles, stringsOf(claims.roles)) ||
    any(match.groups, stringsOf(claims.groups)) ||
    any(match.applications, application ? [application] : []) ||
    any(match.objectIds, objectId ? [objectId] : [])
  );
}

/** The principal a verified token is, or undefined when no principal's match takes it (a 403: valid, no rights). */
export function principalOfToken(principals: readonly PrincipalConfig[], claims: JWTPayload): Principal | undefined {
  const config = principals.find((p) => p.oidc && matches(p.oidc, claims));
  if (!config) return undefined;
  return { name: config.name, accounts: config.accounts, readOnly: config.readOnly, ...tokenIdentity(claims) };
}

/** The name the audit trail records a valid token under when no principal takes it. */
export const UNMATCHED_TOKEN_NAME = "(no principal)";

/** A valid token that no principal takes, as its refusal is recorded: who it is about, and no rights at all. */
export function unmatchedTokenPrincipal(claims: JWTPayload): Principal {
  return { name: UNMATCHED_TOKEN_NAME, accounts: [], readOnly: true, ...tokenIdentity(claims) };
}

/** How a token proves who it is: its subject, issuer and calling application (never the token itself). */
function tokenIdentity(claims: JWTPayload): Pick<Principal, "via" | "subject" | "issuer" | "application"> {
  const application = applicationOf(claims);
  const subject = subjectOf(claims);
  return {
    via: "oidc",
    ...(subject ? { subject } : {}),
    ...(claims.iss ? { issuer: claims.iss } : {}),
    ...(application ? { application } : {}),
  };
}
