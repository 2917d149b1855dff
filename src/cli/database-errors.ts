// Turns a failure to reach or use the database into one line an operator can act on, with the password hidden.

import { databaseAdvice } from "../database-advice.js";
import { redactUrl } from "../redact-url.js";
import type { Store } from "../store/store.js";
import type { StoreProblem } from "../store/store-problem.js";
import type { TaskTable } from "../store/task-table.js";
import { CliError, EXIT_FAILURE } from "./exit-codes.js";

const URL_SOURCES = "DATABASE_URL (or --database-url / databaseUrl)";

/** A CliError (exit 1) that says what went wrong with the database at `url` and what to check. */
export function problemFailure(
  problem: StoreProblem,
  url: string,
  table: TaskTable,
  displayName: string,
  source: string | undefined,
  cause?: unknown,
): CliError {
  const advice = databaseAdvice(problem, { option: source ?? URL_SOURCES, table, displayName });
  return new CliError(`cannot use the database at ${redactUrl(url)}: ${problem.message}; ${advice}.`, EXIT_FAILURE, { cause: cause ?? problem });
}

/** The same for an error thrown while a command worked. */
export function databaseFailure(store: Store, error: unknown, url: string, table: TaskTable, source: string | undefined): CliError {
  return problemFailure(store.classify(error), url, table, store.displayName, source, error);
}
