// SQL units of `task-runner migrate` on PostgreSQL: Prisma Migrate's `_prisma_migrations` table (created with
// Prisma's own DDL), its rows written as Prisma writes them, Prisma's migration lock, and the columns of a table.
//
// As read in prisma-engines (https://github.com/prisma/prisma-engines): the DDL is create_migrations_table of
// schema-engine/connectors/sql-schema-connector/src/flavour/postgres.rs; the rows follow
// schema-engine/connectors/sql-schema-connector/src/sql_migration_persistence.rs (a started row with a random UUID v4
// id, the checksum, started_at and the name; applied_steps_count raised by one per successful script; finished_at
// set at the end; `migrate resolve --applied` writes logs '' and started_at = finished_at, and `--rolled-back` sets
// rolled_back_at), and the lock is `pg_advisory_lock(72707369)` with a 10 s limit (acquire_lock in postgres.rs).

import type pg from "pg";
import type { MigrationRecord } from "../../../migrate/migration-ledger.js";

type Client = Pick<pg.ClientBase, "query">;

/** The key of Prisma Migrate's advisory lock: holding it keeps `prisma migrate` (and other runs) out. */
const PRISMA_MIGRATE_LOCK = 72707369;

/** Takes Prisma Migrate's lock, waiting at most `timeoutMs`; false when it stayed taken. */
export async function takeMigrateLock(client: Client, timeoutMs: number): Promise<boolean> {
  await client.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK})`);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "55P03") return false; // lock_not_available
    throw error;
  } finally {
    await client.query("RESET lock_timeout");
  }
}

/** Sets the schema the migrations run in, as Prisma does for a URL with ?schema=. */
export async function useSchema(client: Client, schema: string): Promise<void> {
  await client.query(`SET search_path TO "${schema.replaceAll('"', '""')}"`);
}

export async function hasRecordTable(client: Client): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  return rows[0]!.present;
}

/** Prisma's DDL, as create_migrations_table writes it. */
export async function createRecordTable(client: Client): Promise<void> {
  await client.query(`CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`);
}

export async function selectRecords(client: Client): Promise<MigrationRecord[]> {
  const { rows } = await client.query<{
    id: string;
    checksum: string;
    migration_name: string;
    started_at: Date;
    finished_at: Date | null;
    rolled_back_at: Date | null;
    logs: string | null;
    applied_steps_count: number;
  }>(
    `SELECT id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count
     FROM _prisma_migrations ORDER BY started_at`,
  );
  return rows.map((row) => ({
    id: row.id,
    checksum: row.checksum,
    migrationName: row.migration_name,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    rolledBackAt: row.rolled_back_at?.toISOString() ?? null,
    logs: row.logs,
    appliedStepsCount: row.applied_steps_count,
  }));
}

/** The row of a migration about to run (logs NULL, no step counted, not finished). */
export async function insertStarted(client: Client, id: string, checksum: string, name: string, startedAt: Date): Promise<void> {
  await client.query(`INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES ($1, $2, $3, $4)`, [id, checksum, startedAt, name]);
}

/** One successful step counted and the row finished. */
export async function finishRecord(client: Client, id: string, finishedAt: Date): Promise<void> {
  await client.query(`UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1, finished_at = $2 WHERE id = $1`, [id, finishedAt]);
}

/** The row of a migration marked applied without running (logs '', no step, started_at = finished_at). */
export async function insertApplied(client: Client, id: string, checksum: string, name: string, at: Date): Promise<void> {
  await client.query(`INSERT INTO _prisma_migrations (id, checksum, logs, started_at, finished_at, migration_name) VALUES ($1, $2, '', $3, $3, $4)`, [
    id,
    checksum,
    at,
    name,
  ]);
}

/** Marks the unfinished rows of `name` rolled back; returns how many. */
export async function markRolledBack(client: Client, name: string, at: Date): Promise<number> {
  const { rowCount } = await client.query(
    `UPDATE _prisma_migrations SET rolled_back_at = $2 WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
    [name, at],
  );
  return rowCount ?? 0;
}

/** The columns of `table` in the schema the migrations create tables in, in order; empty when there is no such table. */
export async function tableColumns(client: Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.attname AS name
     FROM pg_catalog.pg_attribute a
     JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY a.attnum`,
    [table],
  );
  return rows.map((row) => row.name);
}
