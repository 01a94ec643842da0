// Bearer tokens: the presented token is hashed and compared with every configured hash in constant time, so
// neither the comparison nor which principal matched shows in the timing.
import { createHash, timingSafeEqual } from "node:crypto";
import type { PrincipalConfig } from "./access-config.ts";

export function findTokenPrincipal(principals: readonly PrincipalConfig[], token: string): PrincipalConfig | undefined {
  const presented = createHash("sha256").update(token, "utf8").digest();
  let found: PrincipalConfig | undefined;
  for (const p of principals) {
    // No early exit: every hash is compared whatever matched before.
    if (p.tokenSha256 && timingSafeEqual(presented, p.tokenSha256) && !found) found = p;
  }
  return found;
}

export type BearerParse = { kind: "none" } | { kind: "malformed" } | { kind: "token"; token: string };

export function parseAuthorization(header: string | undefined): BearerParse {
  if (header === undefined || header.trim() === "") return { kind: "none" };
  const m = /^Bearer[ ]+([\x21-\x7e]+)\s*$/i.exec(header.trim());
  return m ? { kind: "token", token: m[1] } : { kind: "malformed" };
}
