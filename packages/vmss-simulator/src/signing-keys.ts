// The simulated Entra ID's token-signing keys: RSA 2048, RS256, each with a key id (`kid`), published as a JWKS.
// Signing and checking are synchronous (node:crypto), so the ARM side checks a token within its request's pipeline.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { kid: randomBytes(12).toString("base64url"), privateKey, publicKey };
}

/** A key as a state directory keeps it (the simulator's own test keys: nothing of Azure's). */
export interface SavedSigningKey {
  kid: string;
  privateKeyPem: string;
}

function savedKey(key: SigningKey): SavedSigningKey {
  return { kid: key.kid, privateKeyPem: key.privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
}

function restoredKey(saved: SavedSigningKey): SigningKey {
  const privateKey = createPrivateKey(saved.privateKeyPem);
  return { kid: saved.kid, privateKey, publicKey: createPublicKey(privateKey) };
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export class SigningKeys {
  #current = newKey();
  /** Keys still published beside the current one (the one before a rotation that kept it). */
  #previous: SigningKey[] = [];

  get current(): SigningKey {
    return this.#current;
  }

  published(): SigningKey[] {
    return [this.#current, ...this.#previous];
  }

  /** Signs with a new key; the old one stays published (keepPrevious) or is withdrawn at once. */
  rotate(keepPrevious: boolean): void {
    this.#previous = keepPrevious ? [this.#current] : [];
    this.#current = newKey();
  }

  /** The published keys, the current one first: tokens issued before a restart still verify after it. */
  saved(): SavedSigningKey[] {
    return this.published().map(savedKey);
  }

  restore(saved: SavedSigningKey[]): void {
    const [current, ...previous] = saved.map(restoredKey);
    if (!current) return;
    this.#current = current;
    this.#previous = previous;
  }

  /** The JWKS at the discovery document's jwks_uri: public keys only, as Entra publishes them. */
  jwks(): { keys: Record<string, unknown>[] } {
    return {
      keys: this.published().map((k) => ({
        kty: "RSA",
        use: "sig",
        kid: k.kid,
        ...(k.publicKey.export({ format: "jwk" }) as { n: string; e: string }),
      })),
    };
  }

  /** A compact JWS, RS256 with the current key. `header` adds to or replaces the header's fields. */
  sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
    const unsigned = `${b64url(JSON.stringify({ typ: "JWT", alg: "RS256", kid: this.#current.kid, ...header }))}.${b64url(JSON.stringify(claims))}`;
    return `${unsigned}.${b64url(sign("sha256", Buffer.from(unsigned), this.#current.privateKey))}`;
  }

  /** The claims of a token signed RS256 by a published key; undefined for anything else. */
  verify(token: string): Record<string, unknown> | undefined {
    const [header, payload, signature] = token.split(".");
    if (signature === undefined) return undefined;
    try {
      const h = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown; kid?: unknown };
      const key = this.published().find((k) => k.kid === h.kid);
      if (h.alg !== "RS256" || !key) return undefined;
      if (!verify("sha256", Buffer.from(`${header}.${payload}`), key.publicKey, Buffer.from(signature, "base64url")))
        return undefined;
      return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
}
