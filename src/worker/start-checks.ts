// What the worker checks about its database before it starts anything: that the database answers and holds the task
// table. A lasting failure becomes one clear TaskQueueConfigError with the password hidden.

import { databaseAdvice } from "../database-advice.js";
import { TaskQueueConfigError } from "../errors.js";
import { redactUrl } from "../redact-url.js";
import type { Store } from "../store/store.js";
import type { TaskTable } from "../store/task-table.js";

/**
 * Reads nothing from the task table but needs it. Throws for what waiting will not fix (wrong credentials, no such
 * database, table or schema, no privilege, a server too old); returns the problem, for the worker to log and outlive,
 * when the server is merely unreachable or busy (a network blip, a restart). `url` is undefined for a store the app
 * passed in.
 */
export async function checkDatabase(store: Store, table: TaskTable, url: string | undefined): Promise<string | undefined> {
  const problem = await store.check();
  if (!problem) return undefined;
  const where = url === undefined ? "the database given as store" : `the database at ${redactUrl(url)}`;
  const option = url === undefined ? "store" : "databaseUrl";
  const advice = databaseAdvice(problem, { option, table, displayName: store.displayName });
  const text = `the worker cannot use ${where}: ${problem.message}; ${advice}.`;
  if (problem.lasting) throw new TaskQueueConfigError(option, text);
  return text;
}
