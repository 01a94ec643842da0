// Who may call the API, as configured (AUTH_TOKENS_FILE, AUTH_TRUST_SPINNAKER_HEADERS, …; read by
// src/config/access.ts), and whether that turns access control on.
/** Who may call the API: one principal, the accounts it may act on, and whether it may only read. */
export interface PrincipalConfig {
  name: string;
  /** "*" = every configured account. */
  accounts: "*" | string[];
  readOnly: boolean;
  /** SHA-256 of the bearer token; the token itself is never kept. */
  tokenSha256: Buffer;
}

export interface AccessConfig {
  /** Bearer-token principals (AUTH_TOKENS_FILE / AUTH_TOKENS). */
  principals: PrincipalConfig[];
  /** Honour Orca's X-SPINNAKER-USER / X-SPINNAKER-ACCOUNTS (AUTH_TRUST_SPINNAKER_HEADERS). */
  trustSpinnakerHeaders: boolean;
  /** /metrics needs a token too (METRICS_REQUIRE_TOKEN). */
  protectMetrics: boolean;
  /** Without access control, real accounts are refused unless this says the network is trusted (TRUSTED_NETWORK). */
  trustedNetwork: boolean;
}

/** Access control is on when anything can identify a caller; otherwise every caller may do everything. */
export function accessControlEnabled(access: AccessConfig): boolean {
  return access.principals.length > 0 || access.trustSpinnakerHeaders;
}
