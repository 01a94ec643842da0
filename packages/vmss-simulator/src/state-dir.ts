// `vmss-sim --state DIR` (SIMULATOR_STATE_DIR): the world kept in DIR/state.json, read at start and written before
// every answer that changed it.
//
// Why one snapshot file, replaced whole, and not an append-only journal: what a request changes is decided by many
// modules' code (a write's acceptance, settle()'s completions, the seeds), so a journal would have to record outcomes
// anyway, and replaying it would need every module's code to stay compatible with old entries. The world is small
// (kilobytes for a developer's set, a few megabytes for thousands of VMs), so writing it whole is cheap, and a reader
// never has to replay anything. Durability, in pure JavaScript: the new document is written to state.json.tmp, fsynced,
// renamed over state.json (atomic on POSIX file systems), and the directory is fsynced so that the rename itself
// survives a power loss. A crash at any point leaves either the old document or the new one, never a torn one.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { SimulatorContext } from "./context.ts";
import type { SimulatedEntraId } from "./token-endpoint.ts";
import { decodeJson, encodeJson, restoreWorld, SNAPSHOT_FORMAT, type WorldSnapshot } from "./world-snapshot.ts";

/** The state directory cannot be used: a sentence for the person who named it. */
export class StateDirError extends Error {
  override name = "StateDirError";
}

export const STATE_FILE = "state.json";

/** A state directory opened by a simulator: what it held at start, and how to keep the world in it. */
export class StateDir {
  readonly dir: string;
  readonly #file: string;
  readonly #temp: string;
  /** The world as last written, without its time: an answer that changed nothing writes nothing. */
  #lastWorld: string | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.#file = join(dir, STATE_FILE);
    this.#temp = `${this.#file}.tmp`;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new StateDirError(`the state directory ${dir} cannot be made: ${(err as Error).message}`);
    }
  }

  /** The world the directory holds, or undefined when it holds none (a new or empty directory: the seed goes in). */
  read(subscriptionId: string): WorldSnapshot | undefined {
    rmSync(this.#temp, { force: true }); // a write a crash interrupted: state.json is still the last whole one
    let text: string;
    try {
      text = readFileSync(this.#file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateDirError(`${this.#file} cannot be read: ${(err as Error).message}`);
    }
    const snapshot = parseSnapshot(text, this.#file);
    if (snapshot.subscriptionId.toLowerCase() !== subscriptionId.toLowerCase())
      throw new StateDirError(
        `${this.#file} holds subscription ${snapshot.subscriptionId}, not ${subscriptionId} (SIMULATOR_SUBSCRIPTION_ID): use another directory`,
      );
    this.#lastWorld = worldText(snapshot);
    return snapshot;
  }

  /** Writes the world when it changed since the last write (`always`: with its clock even when it did not). */
  save(snapshotOf: () => WorldSnapshot, always = false): void {
    const snapshot = snapshotOf();
    const world = worldText(snapshot);
    if (world === this.#lastWorld && !always) return;
    this.#writeDurably(JSON.stringify(encodeJson(snapshot)));
    this.#lastWorld = world;
  }

  #writeDurably(text: string): void {
    const fd = openSync(this.#temp, "w");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(this.#temp, this.#file);
    fsyncDirectory(this.dir);
  }
}

/** The document without its time, to compare one world with another. */
function worldText(snapshot: WorldSnapshot): string {
  return JSON.stringify(encodeJson({ ...snapshot, savedAt: undefined }));
}

function parseSnapshot(text: string, file: string): WorldSnapshot {
  let doc: unknown;
  try {
    doc = decodeJson(JSON.parse(text) as Parameters<typeof decodeJson>[0]);
  } catch (err) {
    throw new StateDirError(`${file} is not JSON: ${(err as Error).message}`);
  }
  const format = (doc as { format?: unknown } | null)?.format;
  if (format !== SNAPSHOT_FORMAT)
    throw new StateDirError(`${file} is not a simulator state of format ${SNAPSHOT_FORMAT} (found ${String(format)})`);
  return doc as WorldSnapshot;
}

/** The rename is durable once the directory is: where a directory cannot be opened (Windows), the rename must do. */
function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a directory; the rename stands
  } finally {
    closeSync(fd);
  }
}

/**
 * The simulator's clock after a restart: the given clock, but never earlier than the clock the state was written at
 * (a machine whose clock went back, or a test clock that starts afresh, would otherwise see operations end before
 * they began).
 */
export function clockAfterRestart(savedAt: number, clock: () => number): () => number {
  const behind = Math.max(0, savedAt - clock());
  return behind === 0 ? clock : () => clock() + behind;
}

/** Restores the world the directory held into a new simulator; the seed flag becomes the saved world's. */
export function restoreInto(sim: SimulatorContext, entra: SimulatedEntraId, snapshot: WorldSnapshot): void {
  restoreWorld(sim.state, snapshot);
  sim.seeded = snapshot.seeded;
  if (snapshot.identity) entra.restore(snapshot.identity);
}
