// Who a request forwarded to Clouddriver says it comes from. As Spinnaker's Gate does it: we authenticate the caller,
// then speak for them. The identity headers Clouddriver (and Fiat behind it) decide on are set from our principal,
// never copied from the caller, except where the caller is a trusted Orca whose headers we already honour.
//
// Gate: the authenticated principal's name and allowed accounts win, the caller's headers only fill in where there is
// no authenticated principal (kork-web .../filters/AuthenticatedRequestFilter.groovy l.84-96), and the outgoing
// client sets them from that context (kork-web .../okhttp/SpinnakerRequestHeaderInterceptor.java l.55-62;
// kork-security .../AuthenticatedRequest.java l.67-90).
import type { Principal } from "./principal.ts";

/** kork-core .../kork/common/Header.java l.27-28. */
export const FORWARDED_USER_HEADER = "x-spinnaker-user";
export const FORWARDED_ACCOUNTS_HEADER = "x-spinnaker-accounts";

/** The caller's credentials, for this service only: never sent on. */
const CALLER_CREDENTIALS = ["authorization", "cookie", "proxy-authorization"];

export interface ForwardedIdentity {
  user: string;
  /** Omitted for a principal of every account here: Clouddriver then decides on the user alone (Fiat does). */
  accounts?: string;
}

/**
 * The identity Clouddriver is told. A principal identified by Orca's headers (AUTH_TRUST_SPINNAKER_HEADERS) keeps
 * Orca's user, with the accounts we allowed it (Orca's own list, narrowed to its token's when it holds one); any
 * other principal is itself: a token's principal name, or "anonymous" without access control (Spinnaker's userid for nobody: kork-security
 * .../SpinnakerUsers.java l.29).
 */
export function forwardedIdentity(principal: Principal): ForwardedIdentity {
  const user = principal.spinnakerUser ?? principal.name;
  return principal.accounts === "*" ? { user } : { user, accounts: principal.accounts.join(",") };
}

/**
 * The headers to send: the caller's end-to-end headers without its credentials and identity headers, then ours.
 * `authorization`: Clouddriver's own credential when one is configured (CLOUDDRIVER_AUTHORIZATION).
 */
export function forwardedHeaders(
  callerHeaders: Record<string, string | string[]>,
  principal: Principal,
  authorization?: string,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(callerHeaders)) {
    const lower = name.toLowerCase();
    if (CALLER_CREDENTIALS.includes(lower) || lower === FORWARDED_USER_HEADER || lower === FORWARDED_ACCOUNTS_HEADER)
      continue;
    out[lower] = value;
  }
  const identity = forwardedIdentity(principal);
  out[FORWARDED_USER_HEADER] = identity.user;
  if (identity.accounts !== undefined) out[FORWARDED_ACCOUNTS_HEADER] = identity.accounts;
  if (authorization) out.authorization = authorization;
  return out;
}

/** Methods that change nothing (RFC 9110 §9.2.1): a read-only principal may forward only these. */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

export type ForwardedPath = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The request target to append to CLOUDDRIVER_URL: an origin-form path whose segments, percent-decoded, hold no
 * dot segment, slash or backslash. Clouddriver (or a proxy before it) may decode and resolve them, and `..` would
 * climb out of CLOUDDRIVER_URL's path prefix. Refused rather than resolved: no client of ours sends them.
 */
export function checkForwardedPath(url: string): ForwardedPath {
  if (!url.startsWith("/") || url.startsWith("//"))
    return { ok: false, reason: "the request target must be a path beginning with a single /" };
  const path = url.split("?")[0];
  for (const segment of path.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { ok: false, reason: `the path segment "${segment}" is not valid percent-encoding` };
    }
    if (decoded === "." || decoded === "..") return { ok: false, reason: `the path has a dot segment ("${segment}")` };
    if (decoded !== segment && /[/\\]/.test(decoded))
      return { ok: false, reason: `the path segment "${segment}" encodes a slash` };
    if (segment.includes("\\")) return { ok: false, reason: "the path has a backslash" };
  }
  return { ok: true, path: url };
}
