// The SQLite database a URL names: `file:./dev.db` or `file:/abs/path.db`, resolved as @prisma/adapter-better-sqlite3
// resolves it (the text after "file:", relative to the process's working directory). URL parameters are refused: the
// adapter would open a file whose name contains them.

import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { TaskQueueConfigError } from "../../errors.js";

/** True for a URL the SQLite dialect serves. */
export function isSqliteUrl(url: string): boolean {
  return /^file:/i.test(url);
}

/** The absolute path of the database file `url` names; throws TaskQueueConfigError naming `option` when it cannot be used. */
export function sqliteFilePath(url: string, option: string, cwd = process.cwd()): string {
  let path = url.replace(/^file:/i, "");
  if (path.startsWith("//")) path = path.slice(2); // file:///abs/path.db
  if (path.includes("?")) {
    throw new TaskQueueConfigError(
      option,
      `${JSON.stringify(url)} carries URL parameters, which @prisma/adapter-better-sqlite3 would take as part of the file name. ` +
        `Use file:<path> alone; set the busy timeout with the adapter's timeout option.`,
    );
  }
  if (path === "" || path === ":memory:") {
    throw new TaskQueueConfigError(option, `${JSON.stringify(url)} names no file: workers, cleaners and the app must share one database file, e.g. file:./dev.db.`);
  }
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return absolute;
}

/** Throws TaskQueueConfigError when the file does not exist: opening it would create an empty database without the task table. */
export function requireExistingFile(path: string, url: string, option: string): void {
  if (!existsSync(path)) {
    throw new TaskQueueConfigError(
      option,
      `the SQLite database ${path} (from ${JSON.stringify(url)}) does not exist. A relative path is resolved against the working ` +
        `directory (${process.cwd()}), as @prisma/adapter-better-sqlite3 does. Fix the path, or create the database by applying the ` +
        `migration (npx task-runner init writes it; npx task-runner migrate applies it and creates the file).`,
    );
  }
}
