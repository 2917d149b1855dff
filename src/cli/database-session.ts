// Opens the database for a command: first one check that proves the database is reachable and the task table exists
// (so a bad URL fails fast, before anything else is touched), then the command's work on a small pool.

import { openStore } from "../dialects/index.js";
import { MissingPackageError } from "../errors.js";
import type { Store } from "../store/store.js";
import type { TaskTable } from "../store/task-table.js";
import { databaseFailure, problemFailure, urlRefusal } from "./database-errors.js";
import { CliError } from "./exit-codes.js";

/** How long a command waits for the database to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens a store on `url` (set by `source`, e.g. "--database-url", named in the advice), checks it, runs `work`, closes
 * it. A URL the dialect refuses outright is an exit-2 CliError naming `source`; a database that cannot serve the queue,
 * or an error of `work` from the database, an exit-1 CliError naming the problem and the fix.
 */
export async function withStore<T>(url: string, table: TaskTable, source: string | undefined, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = openStore(url, { table, max: 2, applicationName: "task-runner", connectTimeoutMs: CONNECT_TIMEOUT_MS });
  } catch (error) {
    throw urlRefusal(error, source);
  }
  try {
    const problem = await store.check();
    if (problem) throw problemFailure(problem, url, table, store.displayName, source);
    return await work(store);
  } catch (error) {
    // A package the command needs (amqplib for the broker) is not installed: no fault of the database.
    if (error instanceof CliError || error instanceof MissingPackageError) throw error;
    throw databaseFailure(store, error, url, table, source);
  } finally {
    await store.close();
  }
}

/** Throws a CliError (exit 1) naming the problem when the database cannot be reached or has no task table. */
export function checkDatabase(url: string, table: TaskTable, source?: string): Promise<void> {
  return withStore(url, table, source, async () => undefined);
}
