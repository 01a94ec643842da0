// The one walk over a write's body for the accounts it names (src/auth/named-accounts.ts): our operations' fields and
// Clouddriver's, in a description, a list of operations, or nested.
import t from "tap";
import { accountsNamedIn, distinctAccounts } from "../src/auth/named-accounts.ts";

t.test("every account field, at any depth; a clone's source is read, the rest written", async (t) => {
  const body = [
    { resizeServerGroup: { credentials: "a", accountName: "b" } },
    { cloneServerGroup: { account: "c", source: { account: "d" } } },
    { anything: { description: { credentials: ["e", "f"] } } },
  ];
  t.same(accountsNamedIn(body), {
    references: [
      { account: "a", access: "write", field: "0.resizeServerGroup.credentials" },
      { account: "b", access: "write", field: "0.resizeServerGroup.accountName" },
      { account: "c", access: "write", field: "1.cloneServerGroup.account" },
      { account: "d", access: "read", field: "1.cloneServerGroup.source.account" },
      { account: "e", access: "write", field: "2.anything.description.credentials" },
      { account: "f", access: "write", field: "2.anything.description.credentials" },
    ],
    tooDeep: false,
  });
  t.same(distinctAccounts(accountsNamedIn({ credentials: "Demo", source: { account: "demo" } }).references), ["Demo"]);
  t.same(accountsNamedIn("credentials").references, [], "not an object: nothing");
});

t.test("a body nested deeper than any description is not walked on, and says so", async (t) => {
  let deep: unknown = { credentials: "x" };
  for (let i = 0; i < 100; i++) deep = { d: deep };
  t.equal(accountsNamedIn(deep).tooDeep, true);
});
