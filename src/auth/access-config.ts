// Who may call the API, as configured (AUTH_TOKENS_FILE, AUTH_TRUST_SPINNAKER_HEADERS, …; read by
// src/config/access.ts), and whether that turns access control on.
import type { BlockList } from "node:net";
import type { OidcConfig } from "./oidc-tokens.ts";

/**
 * Which OpenID Connect tokens are this principal: a token matches when it holds any of the values listed (Entra
 * ID's claims: app roles `roles`, group object ids `groups`, the calling application `azp` / `appid`, the caller's
 * object id `oid`).
 */
export interface OidcMatch {
  roles?: string[];
  groups?: string[];
  applications?: string[];
  objectIds?: string[];
}
/** Who may call the API: one principal, the accounts it may act on, and whether it may only read. */
export interface PrincipalConfig {
  name: string;
  /** "*" = every configured account. */
  accounts: "*" | string[];
  readOnly: boolean;
  /** SHA-256 of a static bearer token; the token itself is never kept. Or… */
  tokenSha256?: Buffer;
  /** …the OpenID Connect tokens that are this principal. */
  oidc?: OidcMatch;
}

export interface AccessConfig {
  /** Bearer-token principals (AUTH_TOKENS_FILE / AUTH_TOKENS). */
  principals: PrincipalConfig[];
  /** The identity provider whose tokens are checked (the principals file's `oidc` section). */
  oidc?: OidcConfig;
  /**
   * Honour Orca's X-SPINNAKER-USER / X-SPINNAKER-ACCOUNTS.
   * @env AUTH_TRUST_SPINNAKER_HEADERS
   * @default `false`
   */
  trustSpinnakerHeaders: boolean;
  /**
   * …only from these source networks (AUTH_SPINNAKER_HEADERS_FROM, CIDRs): anyone else who sends them is refused.
   * `networks` for the messages, `blockList` to match.
   */
  spinnakerHeadersFrom?: { networks: string[]; blockList: BlockList };
  /**
   * /metrics needs a token too.
   * @env METRICS_REQUIRE_TOKEN
   * @default `true` with principals, else `false`
   */
  protectMetrics: boolean;
  /**
   * Without access control, real accounts are refused unless this says the network is trusted.
   * @env TRUSTED_NETWORK
   * @default `false`
   */
  trustedNetwork: boolean;
}

/** Access control is on when anything can identify a caller; otherwise every caller may do everything. */
export function accessControlEnabled(access: AccessConfig): boolean {
  return access.principals.length > 0 || access.trustSpinnakerHeaders;
}
