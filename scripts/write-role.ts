// Writes the custom roles and the table of actions in docs/real-azure.md from the action table
// (src/azure/arm-actions.ts), between its markers, so that the role a team assigns is exactly what the service calls.
//   npm run docs:role             write them
//   npm run docs:role -- --check  exit 1 if the page differs from the table (test/arm-actions.test.ts)
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ARM_ACTIONS, customRole, type ActionScope } from "../src/azure/arm-actions.ts";
import { runAsScript, writeOrCheck } from "./generated-part.ts";

export const REAL_AZURE_DOC = fileURLToPath(new URL("../docs/real-azure.md", import.meta.url));
const START = "<!-- roles: generated from src/azure/arm-actions.ts by npm run docs:role -->";
const END = "<!-- end of roles -->";
const EXAMPLE_SUBSCRIPTION = "/subscriptions/11111111-2222-3333-4444-555555555555";

const SCOPE_NAMES: Record<ActionScope, string> = {
  resourceGroup: "each resource group",
  subscription: "the subscription",
  vault: "the Key Vault",
};

function json(value: unknown): string {
  return ["```json", JSON.stringify(value, null, 2), "```"].join("\n");
}

/** The part of the page the table writes: the two roles, then every action with where and why. */
export function rolesPart(): string {
  const rows = ARM_ACTIONS.map(
    (a) =>
      `| \`${a.action}\`${a.data ? " (data action)" : ""} | ${SCOPE_NAMES[a.scope]} | ${a.why.replace(/\|/g, "\\|")} |`,
  );
  return [
    "`vmss-ops-role.json`, assigned on each resource group the account manages:",
    "",
    json(customRole("resourceGroup", `${EXAMPLE_SUBSCRIPTION}/resourceGroups/prod-rg`)),
    "",
    "`vmss-ops-reader.json`, assigned on the subscription, for `vmss-ops doctor`'s reads only (without it, `doctor`",
    "WARNs that the subscription, its providers and its quota could not be checked; the operations do not need it):",
    "",
    json(customRole("subscription", EXAMPLE_SUBSCRIPTION)),
    "",
    "Every action, where it is granted and why the service needs it:",
    "",
    "| action | granted on | why |",
    "| --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** The page with its generated part replaced by the table's. */
export function withRoles(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/real-azure.md has no role markers (${START} … ${END})`);
  return `${page.slice(0, start)}${START}\n\n${rolesPart()}\n\n${page.slice(end)}`;
}

async function main(argv: string[]): Promise<number> {
  const page = await readFile(REAL_AZURE_DOC, "utf8");
  return writeOrCheck(
    {
      path: REAL_AZURE_DOC,
      current: page,
      wanted: withRoles(page),
      what: "docs/real-azure.md's roles",
      source: "src/azure/arm-actions.ts",
      command: "npm run docs:role",
    },
    argv,
  );
}

runAsScript(import.meta.url, "write-role", main);
