// Writes src/cli/api-types.ts, the TypeScript types of the API, from openapi/openapi.json with openapi-typescript.
// The vmss-ops command is typed on them, so a change of the API that it does not follow fails `tsc`. They are
// checked in (not generated at install) because the command runs from a plain install, where openapi-typescript,
// a dev dependency, is absent.
//   npm run cli:types              write the file
//   npm run cli:types -- --check   exit 1 if it differs from what openapi/openapi.json gives
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { DEFAULT_OPENAPI_PATH } from "./write-openapi.ts";

export const CLI_TYPES_PATH = fileURLToPath(new URL("../src/cli/api-types.ts", import.meta.url));

export async function generateCliTypes(): Promise<string> {
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8")) as OpenAPI3;
  const ast = await openapiTS(document);
  return `// Generated from openapi/openapi.json by scripts/write-cli-types.ts (npm run cli:types). Do not edit.\n${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await generateCliTypes();
  if (process.argv.includes("--check")) {
    const current = await readFile(CLI_TYPES_PATH, "utf8").catch(() => "");
    if (current !== text) {
      console.error("src/cli/api-types.ts is not what openapi/openapi.json gives: run npm run cli:types");
      process.exit(1);
    }
  } else {
    await writeFile(CLI_TYPES_PATH, text);
  }
}
