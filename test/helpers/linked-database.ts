// A PostgreSQL database of a test's own, reached directly or through a faulty link (testkit/faulty-link.ts) that the test
// spoils: created on the machine's PostgreSQL, dropped (with its connections) when the test ends.
import type { Test } from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { faultyLink, type FaultyLink } from "../../testkit/faulty-link.ts";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface LinkedDatabase {
  name: string;
  /** The database, straight to PostgreSQL. */
  directUrl: string;
  /** The same database through the link. */
  linkedUrl: string;
  link: FaultyLink;
}

/** A new database named `<prefix>_<random>` and a link in front of PostgreSQL, both gone at t's teardown. */
export async function linkedDatabase(t: Test, prefix: string): Promise<LinkedDatabase> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  const adminUrl = new URL(ADMIN_URL);
  const link = await faultyLink({ host: adminUrl.hostname, port: Number(adminUrl.port || 5432) });
  t.teardown(() => link.close());
  const directUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const linkedUrl = Object.assign(new URL(directUrl), { port: String(link.port) }).toString();
  return { name, directUrl, linkedUrl, link };
}
