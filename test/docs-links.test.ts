// Every relative link of the READMEs (the repository's, the simulator package's) and docs/ leads somewhere: the file exists, and a #fragment names a heading of
// that page (GitHub's anchors: lower case, punctuation dropped, spaces to '-').
import t from "tap";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO } from "../testkit/child-service.ts";

const pages = [
  "README.md",
  "packages/vmss-simulator/README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

function anchors(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return new Set(
    [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

for (const page of pages) {
  const text = readFileSync(join(REPO, page), "utf8")
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/`[^`\n]*`/g, "");
  const broken: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1];
    if (/^[a-z]+:/.test(href)) continue;
    const [path, fragment] = href.split("#");
    const target = path ? join(dirname(join(REPO, page)), path) : join(REPO, page);
    if (!existsSync(target)) {
      broken.push(`${href}: no ${relative(REPO, target)}`);
      continue;
    }
    if (
      fragment &&
      statSync(target).isFile() &&
      target.endsWith(".md") &&
      !anchors(readFileSync(target, "utf8")).has(fragment)
    )
      broken.push(`${href}: no heading #${fragment}`);
  }
  t.same(broken, [], `${page}: every link leads somewhere`);
}
