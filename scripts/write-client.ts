// Writes src/client/openapi.ts, the client package's types of the API, from openapi/openapi.json with
// openapi-typescript. The package's runtime is openapi-fetch; these types are all that is generated. They are
// checked in (not generated at install) because the vmss-ops command uses the package from a plain install, where
// openapi-typescript, a dev dependency, is absent.
//   npm run client              write the file
//   npm run client -- --check   exit 1 if it differs from what openapi/openapi.json gives
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, NEVER, type OpenAPI3, type SchemaObject } from "openapi-typescript";
import { DEFAULT_OPENAPI_PATH } from "./write-openapi.ts";

export const CLIENT_TYPES_PATH = fileURLToPath(new URL("../src/client/openapi.ts", import.meta.url));

/**
 * A field the service refuses whatever its value (`not: {}`, JSON Schema's "no value is valid"), such as
 * osConfig.adminPassword: openapi-typescript would type it `unknown`, which any value satisfies; it is `never`, so
 * that setting it fails tsc.
 */
function refusedIsNever(schema: SchemaObject) {
  const not = (schema as { not?: unknown }).not;
  const refused = typeof not === "object" && not !== null && Object.keys(not).length === 0;
  return refused ? NEVER : undefined;
}

export async function generateClientTypes(): Promise<string> {
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8")) as OpenAPI3;
  const ast = await openapiTS(document, { transform: refusedIsNever });
  return `// Generated from openapi/openapi.json by scripts/write-client.ts (npm run client). Do not edit.\n${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await generateClientTypes();
  if (process.argv.includes("--check")) {
    const current = await readFile(CLIENT_TYPES_PATH, "utf8").catch(() => "");
    if (current !== text) {
      console.error("src/client/openapi.ts is not what openapi/openapi.json gives: run npm run client");
      process.exit(1);
    }
  } else {
    await writeFile(CLIENT_TYPES_PATH, text);
  }
}
