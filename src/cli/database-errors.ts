// Turns a failure to reach or use the database into one line an operator can act on, with the password hidden.

import { CliError, EXIT_FAILURE } from "./exit-codes.js";
import { redactUrl } from "../redact-url.js";


/** A CliError (exit 1) that says what went wrong with the database at `url` and what to check. */
export function databaseFailure(error: unknown, url: string, table: string): CliError {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const where = redactUrl(url);
  let advice: string;
  switch (code) {
    case "ECONNREFUSED":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
      advice = "is PostgreSQL running there? Check the host and port in DATABASE_URL (or --database-url / databaseUrl).";
      break;
    case "28P01":
    case "28000":
      advice = "the credentials were refused. Check the user and password in DATABASE_URL (or --database-url / databaseUrl).";
      break;
    case "3D000":
      advice = "that database does not exist. Check the database name in DATABASE_URL.";
      break;
    case "42P01":
      advice = `the table ${table} does not exist there. Apply the migration (npx task-runner init, then npx prisma migrate deploy), or set table/schema in the config.`;
      break;
    default:
      advice = "check DATABASE_URL and that the database is reachable.";
  }
  return new CliError(`cannot use the database at ${where}: ${message ?? String(error)}; ${advice}`, EXIT_FAILURE, { cause: error });
}
