// Claims the docs make about what the code does, held to the code: each rule is stated once in the source, and
// the docs quote it, or the claim is checked against what the code does.
import t from "tap";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseName, resourceGroupOf, SERVER_GROUP_RESOURCE_GROUP_RULE } from "../src/naming/frigga.ts";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const docs = ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"));
/** A doc as a reader reads it: code spans as plain words, one space between words. */
const prose = (path: string) => read(path).replace(/`/g, "").replace(/\s+/g, " ");

t.test(
  "where a server group without resourceGroup lives: the code's rule, quoted by the docs and the API",
  async (t) => {
    const account = { defaultResourceGroup: "team-rg" };
    t.equal(resourceGroupOf(account, "web-prod-v001", "East US"), "web-eastus", "{application}-{region}");
    t.equal(
      resourceGroupOf({ ...account, serverGroupResourceGroup: "account" }, "web-prod-v001", "eastus"),
      "team-rg",
      "the account's defaultResourceGroup with serverGroupResourceGroup: account",
    );
    const unconventional = "web prod";
    t.equal(parseName(unconventional), undefined);
    t.equal(resourceGroupOf(account, unconventional, "eastus"), "team-rg", "a name that follows no convention");

    for (const doc of ["docs/api.md", "docs/troubleshooting.md", "docs/orca.md"])
      t.ok(prose(doc).includes(SERVER_GROUP_RESOURCE_GROUP_RULE), `${doc} states the rule as the code does`);
    for (const doc of docs)
      t.notMatch(
        prose(doc),
        /defaultResourceGroup,? (?:or )?else \{application\}|\(default: the account's defaultResourceGroup\)/,
        `${doc} does not put the account's defaultResourceGroup first`,
      );

    const described: string[] = [];
    (function walk(node: unknown): void {
      if (typeof node !== "object" || node === null) return;
      const properties = (node as { properties?: Record<string, { description?: string }> }).properties;
      const field = properties?.resourceGroup?.description;
      if (field !== undefined) described.push(field);
      for (const child of Object.values(node)) walk(child);
    })(JSON.parse(read("openapi/openapi.json")));
    t.ok(described.length >= 2, `the descriptions' resourceGroup fields are described (${described.length})`);
    t.same(
      [...new Set(described.filter((d) => /default/i.test(d)))].filter((d) => d !== SERVER_GROUP_RESOURCE_GROUP_RULE),
      [],
      "every description of resourceGroup that speaks of a default is the rule",
    );
    t.ok(described.includes(SERVER_GROUP_RESOURCE_GROUP_RULE), "openapi/openapi.json carries the rule");
  },
);
