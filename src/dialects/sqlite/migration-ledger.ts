// `task-runner migrate` on SQLite: a better-sqlite3 connection on the database file (created when missing, as
// `prisma migrate deploy` creates it), each migration run in one BEGIN IMMEDIATE transaction with its record.
//
// Like Prisma's engine, the connection leaves foreign key enforcement off, so a script that rebuilds a table (copy,
// drop, rename) does not cascade the drop to rows that point at it.

import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { errorMessage } from "../../error-text.js";
import { MigrationFailedError, MigrationLockedError } from "../../errors.js";
import type { LedgerMigration, MigrationLedger, MigrationLedgerOptions } from "../../migrate/migration-ledger.js";
import { betterSqlite3, type SqliteDatabase } from "./driver.js";
import { classifySqliteError } from "./errors.js";
import { sqliteFilePath } from "./file-url.js";
import * as sql from "./sql/prisma-migrations.js";

/** How long a statement waits for another connection's write lock (a worker's), in ms. */
const BUSY_TIMEOUT_MS = 10_000;

export function sqliteMigrationLedger(url: string, _options: MigrationLedgerOptions = {}): MigrationLedger {
  const path = sqliteFilePath(url, "databaseUrl");
  let database: SqliteDatabase | undefined;
  const db = () => (database ??= new (betterSqlite3())(path, { timeout: BUSY_TIMEOUT_MS }));
  /** Reads open nothing while the file does not exist, so that a dry run creates no file. */
  const existing = () => (database !== undefined || existsSync(path) ? db() : undefined);

  return {
    displayName: "SQLite",
    provider: "sqlite",
    // Prisma switches the file to exclusive locking for its run, which would stop every worker meanwhile. Here each
    // migration takes the write lock (BEGIN IMMEDIATE) and checks inside it that no other run recorded it meanwhile.
    async lock() {},
    async records() {
      const file = existing();
      return file && sql.hasTable(file, "_prisma_migrations") ? sql.selectRecords(file) : undefined;
    },
    async columns(table) {
      const file = existing();
      const columns = file ? sql.tableColumns(file, table) : [];
      return columns.length > 0 ? columns : undefined;
    },
    async ensureTable() {
      if (!sql.hasTable(db(), "_prisma_migrations")) sql.createRecordTable(db());
    },
    async apply(migration: LedgerMigration) {
      const file = db();
      const id = randomUUID();
      file.prepare("BEGIN IMMEDIATE").run();
      try {
        if (sql.isRecorded(file, migration.name)) throw new MigrationLockedError(`${migration.name} was recorded by another run while this one waited`);
        sql.insertStarted(file, id, migration.checksum, migration.name, new Date());
        try {
          file.exec(migration.script);
        } catch (error) {
          const { message, code } = error as { message?: unknown; code?: unknown };
          const text = typeof message === "string" ? message : errorMessage(error);
          throw new MigrationFailedError(migration.name, `${text}${typeof code === "string" && code ? ` (${code})` : ""}`, false);
        }
        sql.finishRecord(file, id, new Date());
        file.prepare("COMMIT").run();
      } catch (error) {
        if (file.inTransaction) file.prepare("ROLLBACK").run();
        throw error;
      }
    },
    async recordApplied(migration: LedgerMigration) {
      sql.insertApplied(db(), randomUUID(), migration.checksum, migration.name, new Date());
    },
    async markRolledBack(name) {
      const file = existing();
      return file && sql.hasTable(file, "_prisma_migrations") ? sql.markRolledBack(file, name, new Date()) : 0;
    },
    classify: classifySqliteError,
    async close() {
      database?.close();
      database = undefined;
    },
  };
}
