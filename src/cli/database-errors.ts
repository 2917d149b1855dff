// Turns a failure to reach or use the database into one line an operator can act on, with the password hidden.

import { databaseAdvice } from "../database-advice.js";
import { TaskQueueConfigError } from "../errors.js";
import { redactUrl } from "../redact-url.js";
import type { Store } from "../store/store.js";
import type { StoreProblem } from "../store/store-problem.js";
import type { TaskTable } from "../store/task-table.js";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "./exit-codes.js";

const URL_SOURCES = "DATABASE_URL (or --database-url / databaseUrl)";

/** A CliError (exit 1) that says what went wrong with the database at `url` and what to check. */
export function problemFailure(problem: StoreProblem, url: string, table: TaskTable, displayName: string, source: string | undefined, cause?: unknown): CliError {
  const advice = databaseAdvice(problem, { option: source ?? URL_SOURCES, table, displayName });
  return new CliError(`cannot use the database at ${redactUrl(url)}: ${problem.message}; ${advice}.`, EXIT_FAILURE, { cause: cause ?? problem });
}

/**
 * A database URL the dialect refused before connecting (SQLite: a file that does not exist, URL parameters, no file) as
 * a usage error (exit 2) that names where the URL came from, as the other bad values do: `the environment variable
 * DATABASE_URL: the SQLite database … does not exist…`. Any other error is returned as it is.
 */
export function urlRefusal(error: unknown, source: string | undefined): unknown {
  if (!(error instanceof TaskQueueConfigError) || error.option !== "databaseUrl") return error;
  const problem = error.message.replace(/^Invalid option "[^"]*": /, "");
  return new CliError(`${source ?? URL_SOURCES}: ${problem}`, EXIT_USAGE, { cause: error });
}

/** The same for an error thrown while a command worked. */
export function databaseFailure(store: Store, error: unknown, url: string, table: TaskTable, source: string | undefined): CliError {
  return problemFailure(store.classify(error), url, table, store.displayName, source, error);
}
