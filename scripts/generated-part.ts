// What the scripts that write a generated part of the repository share: write the part when it changed, or with
// --check only say that the committed one differs and which command mends it; and run `main` only when the module
// is the script node was asked to run (tests import the builders without writing anything).
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface GeneratedPart {
  /** The file to write. */
  path: string;
  /** What the file holds now, and what it should. */
  current: string;
  wanted: string;
  /** How a person names the part ("README.md's benchmark table"), what it comes from, and the command that writes it. */
  what: string;
  source: string;
  command: string;
}

/** Writes the part (0), or with --check in argv: 0 when it is as it should be, else 1 and how to mend it. */
export async function writeOrCheck(part: GeneratedPart, argv: string[]): Promise<number> {
  const same = part.current === part.wanted;
  if (argv.includes("--check")) {
    if (same) return 0;
    console.error(`${part.what} differs from ${part.source}. Run \`${part.command}\` and commit the result.`);
    return 1;
  }
  if (!same) await writeFile(part.path, part.wanted);
  console.log(same ? `${part.what} is already up to date.` : `wrote ${part.what}`);
  return 0;
}

/** Runs main with the script's arguments and exits with its code, when `moduleUrl` is the script node runs. */
export function runAsScript(moduleUrl: string, name: string, main: (argv: string[]) => Promise<number>): void {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`${name} failed:`, err);
      process.exit(1);
    },
  );
}
