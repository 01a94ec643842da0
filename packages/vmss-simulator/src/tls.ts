// The simulator's TLS material: a self-signed certificate for localhost / 127.0.0.1 / ::1 (see tls/README.md).
import { readFileSync } from "node:fs";
import { join } from "node:path";

const TLS_DIR = join(import.meta.dirname, "tls");

export const SIMULATOR_CERT_PATH = join(TLS_DIR, "simulator-cert.pem");
export const SIMULATOR_KEY_PATH = join(TLS_DIR, "simulator-key.pem");

export interface TlsMaterial {
  /** The certificate in PEM form; clients pass it as their trusted CA (`tlsOptions.ca`). */
  certPem: string;
  keyPem: string;
}

let cached: TlsMaterial | undefined;

export function loadTlsMaterial(): TlsMaterial {
  cached ??= {
    certPem: readFileSync(SIMULATOR_CERT_PATH, "utf8"),
    keyPem: readFileSync(SIMULATOR_KEY_PATH, "utf8"),
  };
  return cached;
}
