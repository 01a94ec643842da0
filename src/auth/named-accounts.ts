// Which accounts a write's body names: the one walk, for our own operations (authorizeWrite), for writes forwarded
// to Clouddriver (forwarded-accounts.ts) and for the audit entries of both. Clouddriver takes a description's account
// from `credentials` (a name, or a list: DefaultAllowedAccountsValidator.groovy l.58-63), `account` or `accountName`
// (AccountNameable.getAccount()); a clone names the account it reads in `source.account`. References nested deeper
// (a description wrapped in another object) count too: whatever the receiver reads, the caller must hold.

/** One account a body names: where, and whether the write reads it (a clone's source) or acts on it. */
export interface AccountReference {
  account: string;
  access: "read" | "write";
  /** The field, as a path from the body (`0.cloneServerGroup.source.account`). */
  field: string;
}

const ACCOUNT_FIELDS = new Set(["credentials", "account", "accountName"]);

/** Deeper than this, a body is not read on: no description nests so far, and the walk must not exhaust the stack. */
const MAX_DEPTH = 32;

export type BodyAccounts = { references: AccountReference[]; tooDeep: boolean };

/** Every account the body names, at any depth; under a `source` object, for reading. Pure. */
export function accountsNamedIn(body: unknown): BodyAccounts {
  const references: AccountReference[] = [];
  let tooDeep = false;
  const walk = (value: unknown, path: string[], underSource: boolean): void => {
    if (typeof value !== "object" || value === null) return;
    if (path.length > MAX_DEPTH) {
      tooDeep = true;
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      const at = [...path, key];
      if (ACCOUNT_FIELDS.has(key) && !Array.isArray(value))
        for (const name of Array.isArray(child) ? child : [child])
          if (typeof name === "string" && name !== "")
            references.push({ account: name, access: underSource ? "read" : "write", field: at.join(".") });
      walk(child, at, underSource || key === "source");
    }
  };
  walk(body, [], false);
  return { references, tooDeep };
}

/** The accounts named, once each (as first spelt). */
export function distinctAccounts(references: AccountReference[]): string[] {
  const seen = new Map<string, string>();
  for (const r of references) if (!seen.has(r.account.toLowerCase())) seen.set(r.account.toLowerCase(), r.account);
  return [...seen.values()];
}
