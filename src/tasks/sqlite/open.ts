// Opening <dataDir>/tasks.db: what must hold before anything is written (the directory, the file, that it is a
// SQLite database and ours), then WAL mode and the migrations. A file the store cannot use is never deleted,
// truncated or rewritten.
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { TaskStoreOpenError } from "../migrations.ts";
import { message } from "./db.ts";
import { inspect, migrate } from "./migrate.ts";

/** The directory exists (created if missing), is one, and is writable; tasks.db, if there, a readable, writable file. */
function checkFiles(dir: string, path: string): void {
  const existing = statSync(dir, { throwIfNoEntry: false });
  if (existing && !existing.isDirectory()) {
    throw new TaskStoreOpenError(
      `the data directory ${dir} (DATA_DIR) for the task store exists but is not a directory`,
    );
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new TaskStoreOpenError(
      `cannot create the data directory ${dir} (DATA_DIR) for the task store: ${message(err)}`,
    );
  }
  try {
    // SQLite creates tasks.db-wal and tasks.db-shm next to the file: the directory must be writable too.
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new TaskStoreOpenError(
      `the data directory ${dir} (DATA_DIR) is not writable, so the task store cannot use ${path}: ${message(err)}`,
    );
  }
  let exists = false;
  try {
    const st = statSync(path);
    exists = true;
    if (!st.isFile()) throw new TaskStoreOpenError(`${path} is not a regular file, so it cannot hold the task store`);
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (err) {
    if (err instanceof TaskStoreOpenError) throw err;
    if (exists)
      throw new TaskStoreOpenError(
        `the task store ${path} is not readable and writable by this process: ${message(err)}`,
      );
  }
}

/**
 * Opens (creating if needed) <dataDir>/tasks.db and brings its schema up to date. Fails with a TaskStoreOpenError
 * naming the path when the directory cannot be created or written, when tasks.db is not a SQLite database (corrupt,
 * or another kind of file) or belongs to something else, or when its schema is newer than this code.
 */
export function openDatabase(dataDir: string, busyTimeoutMs: number): { db: DatabaseSync; path: string } {
  const dir = resolve(dataDir);
  const path = join(dir, "tasks.db");
  checkFiles(dir, path);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  } catch (err) {
    throw new TaskStoreOpenError(`cannot open the task store ${path}: ${message(err)}`);
  }
  try {
    checkHeader(db, path);
    // Refuse a database that is not ours or is too new before anything writes to it (WAL mode changes the header).
    inspect(db, path);
    setWal(db);
    db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    migrate(db, path);
  } catch (err) {
    try {
      db.close();
    } catch {
      // already failing
    }
    if (err instanceof TaskStoreOpenError) throw err;
    throw new TaskStoreOpenError(`cannot open the task store ${path}: ${message(err)}`);
  }
  return { db, path };
}

/** The first read checks the file header; nothing is written before it succeeds. */
function checkHeader(db: DatabaseSync, path: string): void {
  try {
    db.prepare("SELECT count(*) AS n FROM sqlite_schema").get();
  } catch (err) {
    if (/not a database|malformed|corrupt/i.test(message(err))) {
      throw new TaskStoreOpenError(
        `${path} is not a usable SQLite database (${message(err)}): it may be corrupt or another kind of file. ` +
          `It was left as it is: move it away (or restore it from a backup) to start the task store again`,
      );
    }
    throw err;
  }
}

function setWal(db: DatabaseSync): void {
  // Two processes opening a new file at once may race on the journal mode; the loser sees the winner's WAL.
  // The switch needs an exclusive lock and SQLite does not run the busy handler for it: SQLITE_BUSY comes back at
  // once while the other process converts the file, so it is retried here like a non-WAL answer.
  for (let i = 0; ; i++) {
    let mode: string | undefined;
    try {
      mode = (db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string } | undefined)?.journal_mode;
    } catch (err) {
      if (!/locked|busy/i.test(message(err)) || i >= 100) throw err;
    }
    if (mode === "wal") return;
    if (i >= 100) throw new Error(`could not switch to WAL mode (journal_mode is ${mode})`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}
