// SQL units of `task-runner migrate` on MySQL and MariaDB: Prisma Migrate's `_prisma_migrations` table (created with
// Prisma's own DDL), its rows written as Prisma writes them, Prisma's migration lock, and the columns of a table.
//
// As read in prisma-engines (https://github.com/prisma/prisma-engines): the DDL is create_migrations_table of
// schema-engine/connectors/sql-schema-connector/src/flavour/mysql.rs, the lock its acquire_lock
// (GET_LOCK('prisma_migrate', 10)); the rows follow schema-engine/connectors/sql-schema-connector/src/sql_migration_persistence.rs
// (see the PostgreSQL unit), with times in UTC, as Prisma writes a DateTime into DATETIME(3).

import type { Connection } from "mariadb";
import type { MigrationRecord } from "../../../migrate/migration-ledger.js";
import { valueText } from "../../../value-text.js";

type Runner = Pick<Connection, "query">;

/** Takes Prisma Migrate's named lock, waiting at most `timeoutSeconds`; false when it stayed taken. */
export async function takeMigrateLock(db: Runner, timeoutSeconds: number): Promise<boolean> {
  const rows = await db.query<Array<{ got: unknown }>>(`SELECT GET_LOCK('prisma_migrate', ?) AS got`, [timeoutSeconds]);
  return Number(rows[0]?.got) === 1;
}

export async function hasTable(db: Runner, table: string): Promise<boolean> {
  const rows = await db.query<Array<{ n: unknown }>>(`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?`, [table]);
  return Number(rows[0]?.n) > 0;
}

/** Prisma's DDL, as create_migrations_table writes it. */
export async function createRecordTable(db: Runner): Promise<void> {
  await db.query(`CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             DATETIME(3),
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          DATETIME(3),
    started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
}

/** Every row, oldest first. The connection returns DATETIME as text (dateStrings), which is UTC here. */
export async function selectRecords(db: Runner): Promise<MigrationRecord[]> {
  const rows = await db.query<Array<Record<string, unknown>>>(
    `SELECT id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count
     FROM _prisma_migrations ORDER BY started_at`,
  );
  return rows.map((row) => ({
    id: String(row.id),
    checksum: String(row.checksum),
    migrationName: String(row.migration_name),
    startedAt: utcText(row.started_at)!,
    finishedAt: utcText(row.finished_at),
    rolledBackAt: utcText(row.rolled_back_at),
    logs: row.logs === null ? null : typeof row.logs === "string" ? row.logs : valueText(row.logs),
    appliedStepsCount: Number(row.applied_steps_count),
  }));
}

/** The row of a migration about to run (logs NULL, no step counted, not finished). */
export async function insertStarted(db: Runner, id: string, checksum: string, name: string, startedAt: Date): Promise<void> {
  await db.query(`INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES (?, ?, ?, ?)`, [id, checksum, datetime(startedAt), name]);
}

/** The error of a failed script, kept on its row as Prisma keeps it; the row stays unfinished. */
export async function recordFailure(db: Runner, id: string, logs: string): Promise<void> {
  await db.query(`UPDATE _prisma_migrations SET logs = ? WHERE id = ?`, [logs, id]);
}

/** One successful step counted and the row finished. */
export async function finishRecord(db: Runner, id: string, finishedAt: Date): Promise<void> {
  await db.query(`UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1, finished_at = ? WHERE id = ?`, [datetime(finishedAt), id]);
}

/** The row of a migration marked applied without running (logs '', no step, started_at = finished_at). */
export async function insertApplied(db: Runner, id: string, checksum: string, name: string, at: Date): Promise<void> {
  await db.query(`INSERT INTO _prisma_migrations (id, checksum, logs, started_at, finished_at, migration_name) VALUES (?, ?, '', ?, ?, ?)`, [
    id,
    checksum,
    datetime(at),
    datetime(at),
    name,
  ]);
}

/** Marks the unfinished rows of `name` rolled back; returns how many. */
export async function markRolledBack(db: Runner, name: string, at: Date): Promise<number> {
  const result = await db.query<{ affectedRows?: unknown }>(
    `UPDATE _prisma_migrations SET rolled_back_at = ? WHERE migration_name = ? AND finished_at IS NULL AND rolled_back_at IS NULL`,
    [datetime(at), name],
  );
  return Number(result.affectedRows ?? 0);
}

/** The columns of `table` in the URL's database, in order; empty when there is no such table. */
export async function tableColumns(db: Runner, table: string): Promise<string[]> {
  const rows = await db.query<Array<{ name: string }>>(
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((row) => row.name);
}

/** A UTC DATETIME(3) literal: "2026-12-02 09:30:00.123". */
function datetime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

function utcText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return `${(typeof value === "string" ? value : valueText(value)).replace(" ", "T")}Z`;
}
