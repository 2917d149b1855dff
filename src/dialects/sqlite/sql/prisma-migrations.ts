// SQL units of `task-runner migrate` on SQLite: Prisma Migrate's `_prisma_migrations` table (created with Prisma's own
// DDL), its rows written as Prisma writes them, and the columns of a table.
//
// As read in prisma-engines (https://github.com/prisma/prisma-engines): the DDL is create_migrations_table of
// schema-engine/connectors/sql-schema-connector/src/flavour/sqlite.rs; the rows follow
// schema-engine/connectors/sql-schema-connector/src/sql_migration_persistence.rs (see the PostgreSQL unit). Times are
// written as Prisma's engine writes a DateTime on SQLite, integer milliseconds since the epoch
// (quaint/src/connector/sqlite/native/conversion.rs), which is also what it reads back from a DATETIME column.

import type { MigrationRecord } from "../../../migrate/migration-ledger.js";
import { valueText } from "../../../value-text.js";
import type { SqliteDatabase } from "../driver.js";

export function hasTable(db: SqliteDatabase, table: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;
}

/** Prisma's DDL, as create_migrations_table writes it. */
export function createRecordTable(db: SqliteDatabase): void {
  db.prepare(
    `CREATE TABLE "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
  ).run();
}

export function selectRecords(db: SqliteDatabase): MigrationRecord[] {
  const rows = db
    .prepare(
      `SELECT id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count
       FROM "_prisma_migrations" ORDER BY started_at`,
    )
    .all() as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    id: String(row.id),
    checksum: String(row.checksum),
    migrationName: String(row.migration_name),
    startedAt: timeText(row.started_at)!,
    finishedAt: timeText(row.finished_at),
    rolledBackAt: timeText(row.rolled_back_at),
    logs: row.logs === null ? null : typeof row.logs === "string" ? row.logs : valueText(row.logs),
    appliedStepsCount: Number(row.applied_steps_count),
  }));
}

/** True when a row of `name` that is not rolled back exists (another migrator recorded it). */
export function isRecorded(db: SqliteDatabase, name: string): boolean {
  return db.prepare(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = ? AND rolled_back_at IS NULL`).get(name) !== undefined;
}

/** The row of a migration about to run (logs NULL, no step counted, not finished). */
export function insertStarted(db: SqliteDatabase, id: string, checksum: string, name: string, startedAt: Date): void {
  db.prepare(`INSERT INTO "_prisma_migrations" (id, checksum, started_at, migration_name) VALUES (?, ?, ?, ?)`).run(id, checksum, startedAt.getTime(), name);
}

/** One successful step counted and the row finished. */
export function finishRecord(db: SqliteDatabase, id: string, finishedAt: Date): void {
  db.prepare(`UPDATE "_prisma_migrations" SET applied_steps_count = applied_steps_count + 1, finished_at = ? WHERE id = ?`).run(finishedAt.getTime(), id);
}

/** The row of a migration marked applied without running (logs '', no step, started_at = finished_at). */
export function insertApplied(db: SqliteDatabase, id: string, checksum: string, name: string, at: Date): void {
  db.prepare(`INSERT INTO "_prisma_migrations" (id, checksum, logs, started_at, finished_at, migration_name) VALUES (?, ?, '', ?, ?, ?)`).run(
    id,
    checksum,
    at.getTime(),
    at.getTime(),
    name,
  );
}

/** Marks the unfinished rows of `name` rolled back; returns how many. */
export function markRolledBack(db: SqliteDatabase, name: string, at: Date): number {
  return db
    .prepare(`UPDATE "_prisma_migrations" SET rolled_back_at = ? WHERE migration_name = ? AND finished_at IS NULL AND rolled_back_at IS NULL`)
    .run(at.getTime(), name).changes;
}

/** The columns of `table`, in order; empty when there is no such table. */
export function tableColumns(db: SqliteDatabase, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((row) => row.name);
}

/** A DATETIME as Prisma may have left it: epoch milliseconds, or text. */
function timeText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "number" || typeof value === "bigint" ? new Date(Number(value)).toISOString() : typeof value === "string" ? value : valueText(value);
}
