// Opens the database for a command: first one short-timeout connection that proves the database is reachable and
// the task table exists (so a bad URL fails fast, before anything else is touched), then a small pool for the work.

import pg from "pg";
import type { TaskTable } from "../db/table.js";
import { pgDb, type PgDb } from "../db/pg-db.js";
import { databaseFailure } from "./database-errors.js";
import { CliError } from "./exit-codes.js";

/** How long a command waits for the database to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Throws a CliError (exit 1) naming the problem when the database cannot be reached or has no task table. */
export async function checkDatabase(url: string, table: TaskTable): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: "task-runner" });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query(`SELECT 1 FROM ${table.sql} LIMIT 0`);
  } catch (error) {
    throw databaseFailure(error, url, table.sql);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Checks the database, runs `work` on a pool of two connections, closes it. Database errors become exit-1 CliErrors. */
export async function withDatabase<T>(url: string, table: TaskTable, work: (db: PgDb) => Promise<T>): Promise<T> {
  await checkDatabase(url, table);
  const db = pgDb(url, { max: 2, applicationName: "task-runner" });
  try {
    return await work(db);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw databaseFailure(error, url, table.sql);
  } finally {
    await db.close();
  }
}
