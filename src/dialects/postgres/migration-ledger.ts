// `task-runner migrate` on PostgreSQL: one pg connection holding Prisma Migrate's lock for the run, each migration
// run in one transaction with its record, so that a failing script leaves neither its changes nor a row behind.
//
// The connection works in the schema of the URL's ?schema=, as Prisma reads it, else in the server's search_path.

import { randomUUID } from "node:crypto";
import type pg from "pg";
import { MigrationFailedError, MigrationLockedError, TaskQueueConfigError } from "../../errors.js";
import type { LedgerMigration, MigrationLedger, MigrationLedgerOptions } from "../../migrate/migration-ledger.js";
import { pgDriver } from "./driver.js";
import { classifyPgError } from "./errors.js";
import { poolerUrl } from "./pooler-url.js";
import * as sql from "./sql/prisma-migrations.js";

/** How long the run waits for Prisma Migrate's lock, as Prisma does. */
const LOCK_TIMEOUT_MS = 10_000;

export function pgMigrationLedger(givenUrl: string, options: MigrationLedgerOptions = {}): MigrationLedger {
  const { url, transactionPooled } = poolerUrl(givenUrl);
  // Prisma Migrate's lock and the migrations' transactions need one session for the run, which PgBouncer in
  // transaction mode does not keep.
  if (transactionPooled) {
    throw new TaskQueueConfigError(
      "directUrl",
      "migrations hold a session lock for the run, and the database URL goes through PgBouncer in transaction mode (pgbouncer=true): set DIRECT_URL (or --direct-url, or directUrl in the config) to a direct URL of the same database.",
    );
  }
  let connecting: Promise<pg.Client> | undefined;
  const client = () =>
    (connecting ??= (async () => {
      const connection = new (pgDriver().Client)({
        connectionString: url,
        application_name: options.applicationName ?? "task-runner migrate",
        connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      });
      connection.on("error", () => {}); // a broken connection fails the next query; without a listener it kills the process
      await connection.connect();
      const schema = new URL(url).searchParams.get("schema");
      if (schema) await sql.useSchema(connection, schema);
      return connection;
    })());

  return {
    displayName: "PostgreSQL",
    provider: "postgresql",
    async lock() {
      if (!(await sql.takeMigrateLock(await client(), LOCK_TIMEOUT_MS))) {
        throw new MigrationLockedError(`Prisma Migrate's advisory lock (pg_advisory_lock(72707369)) stayed taken for ${LOCK_TIMEOUT_MS / 1000} s`);
      }
    },
    async records() {
      const connection = await client();
      return (await sql.hasRecordTable(connection)) ? sql.selectRecords(connection) : undefined;
    },
    async columns(table) {
      const columns = await sql.tableColumns(await client(), table);
      return columns.length > 0 ? columns : undefined;
    },
    async ensureTable() {
      const connection = await client();
      if (!(await sql.hasRecordTable(connection))) await sql.createRecordTable(connection);
    },
    async apply(migration: LedgerMigration) {
      const connection = await client();
      const id = randomUUID();
      await connection.query("BEGIN");
      try {
        await sql.insertStarted(connection, id, migration.checksum, migration.name, new Date());
        try {
          // No parameters: pg sends the script with the simple query protocol, every statement of it, as Prisma does.
          await connection.query(migration.script);
        } catch (error) {
          throw new MigrationFailedError(migration.name, scriptError(error, migration.script), false);
        }
        await sql.finishRecord(connection, id, new Date());
        await connection.query("COMMIT");
      } catch (error) {
        await connection.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    async recordApplied(migration: LedgerMigration) {
      await sql.insertApplied(await client(), randomUUID(), migration.checksum, migration.name, new Date());
    },
    async markRolledBack(name) {
      const connection = await client();
      return (await sql.hasRecordTable(connection)) ? sql.markRolledBack(connection, name, new Date()) : 0;
    },
    classify: classifyPgError,
    async close() {
      const opened = await connecting?.catch(() => undefined);
      connecting = undefined;
      await opened?.end();
    },
  };
}

/** The server's message, with the line of the script it points at when it gives a position. */
function scriptError(error: unknown, script: string): string {
  const e = error as { message?: unknown; code?: unknown; position?: unknown };
  const message = typeof e.message === "string" ? e.message : String(error);
  const position = Number(e.position);
  const line = Number.isInteger(position) && position > 0 ? script.slice(0, position - 1).split("\n").length : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  return `${message}${code ? ` (SQLSTATE ${code})` : ""}${line ? ` at line ${line} of migration.sql` : ""}`;
}
