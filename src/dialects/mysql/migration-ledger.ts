// `task-runner migrate` on MySQL and MariaDB: one mariadb connection that sends each migration script whole, under
// Prisma Migrate's named lock, its row written as started first and finished after, as Prisma writes it.
//
// DDL commits itself on MySQL, so a migration cannot run in a transaction: a failing script leaves the statements before
// it applied and the row started with the error in its logs: half-applied, and reported as such.

import { randomUUID } from "node:crypto";
import type { Connection } from "mariadb";
import { MigrationFailedError, MigrationLockedError } from "../../errors.js";
import type { LedgerMigration, MigrationLedger, MigrationLedgerOptions } from "../../migrate/migration-ledger.js";
import { connectionConfig } from "./connection-options.js";
import { mariadbDriver } from "./driver.js";
import { classifyMysqlError } from "./errors.js";
import * as sql from "./sql/prisma-migrations.js";

/** How long the run waits for Prisma Migrate's lock, in seconds, as Prisma does. */
const LOCK_TIMEOUT_S = 10;

/** ER_EMPTY_QUERY: a script of comments only, which the server refuses to run; there is nothing to apply. */
const EMPTY_QUERY = 1065;

export function mysqlMigrationLedger(url: string, options: MigrationLedgerOptions = {}): MigrationLedger {
  // Checked now, so a bad URL fails before anything connects.
  const config = connectionConfig(url, {
    connectTimeoutMs: options.connectTimeoutMs,
    applicationName: options.applicationName ?? "task-runner migrate",
    queryTimeoutMs: 0, // a migration's ALTER on a large table may take long: no client-side limit
  });
  let connecting: Promise<Connection> | undefined;
  const connection = () => (connecting ??= Promise.resolve().then(() => mariadbDriver().createConnection({ ...config, multipleStatements: true, dateStrings: true })));

  return {
    displayName: "MySQL",
    provider: "mysql",
    async lock() {
      if (!(await sql.takeMigrateLock(await connection(), LOCK_TIMEOUT_S))) {
        throw new MigrationLockedError(`Prisma Migrate's lock (GET_LOCK('prisma_migrate')) stayed taken for ${LOCK_TIMEOUT_S} s`);
      }
    },
    async records() {
      const db = await connection();
      return (await sql.hasTable(db, "_prisma_migrations")) ? sql.selectRecords(db) : undefined;
    },
    async columns(table) {
      const columns = await sql.tableColumns(await connection(), table);
      return columns.length > 0 ? columns : undefined;
    },
    async ensureTable() {
      const db = await connection();
      if (!(await sql.hasTable(db, "_prisma_migrations"))) await sql.createRecordTable(db);
    },
    async apply(migration: LedgerMigration) {
      const db = await connection();
      const id = randomUUID();
      await sql.insertStarted(db, id, migration.checksum, migration.name, new Date());
      try {
        await db.query(migration.script);
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== EMPTY_QUERY) {
          await sql.recordFailure(db, id, scriptError(error));
          throw new MigrationFailedError(migration.name, scriptError(error), true);
        }
      }
      await sql.finishRecord(db, id, new Date());
    },
    async recordApplied(migration: LedgerMigration) {
      await sql.insertApplied(await connection(), randomUUID(), migration.checksum, migration.name, new Date());
    },
    async markRolledBack(name) {
      const db = await connection();
      return (await sql.hasTable(db, "_prisma_migrations")) ? sql.markRolledBack(db, name, new Date()) : 0;
    },
    classify: classifyMysqlError,
    async close() {
      const opened = await connecting?.catch(() => undefined);
      connecting = undefined;
      await opened?.end().catch(() => opened.destroy());
    },
  };
}

/** The server's message and error number (the driver's message repeats the statement after it; it is cut). */
function scriptError(error: unknown): string {
  const e = error as { sqlMessage?: unknown; message?: unknown; errno?: unknown; code?: unknown };
  const message = typeof e.sqlMessage === "string" ? e.sqlMessage : String(e.message ?? error);
  const errno = typeof e.errno === "number" ? e.errno : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  return `${message}${errno ? ` (error ${errno}${code ? ` ${code}` : ""})` : ""}`;
}
