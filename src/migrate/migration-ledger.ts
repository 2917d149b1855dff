// The seam between `task-runner migrate` and a dialect: Prisma Migrate's `_prisma_migrations` table and the running
// of migration scripts on the dialect's own driver. Each dialect implements it in its folder; nothing here holds SQL.

import type { StoreProblem } from "../store/store-problem.js";

/** One row of `_prisma_migrations`. Times are ISO 8601 text, for messages. */
export interface MigrationRecord {
  id: string;
  checksum: string;
  migrationName: string;
  startedAt: string;
  finishedAt: string | null;
  rolledBackAt: string | null;
  logs: string | null;
  appliedStepsCount: number;
}

/** A migration to run or record: its folder name, its script and the script's checksum. */
export interface LedgerMigration {
  name: string;
  script: string;
  checksum: string;
}

/** How a migration connection opens. */
export interface MigrationLedgerOptions {
  /** Give up opening the connection after this long, in ms. Default 10000. */
  connectTimeoutMs?: number;
  /** How the connection introduces itself to the server (PostgreSQL application_name). Default "task-runner migrate". */
  applicationName?: string;
}

/** `_prisma_migrations` and the migrations' statements, on one connection; nothing connects before the first call. */
export interface MigrationLedger {
  /** The database's name for people: "PostgreSQL". */
  readonly displayName: string;
  /** The Prisma provider whose migrations this database runs ("postgresql", "sqlite", "mysql"), as migration_lock.toml names it. */
  readonly provider: string;
  /**
   * Takes the lock Prisma Migrate takes, so that this run and a `prisma migrate` (or another run) never apply
   * migrations at once; held until close(). Throws MigrationLockedError when it stays taken.
   */
  lock(): Promise<void>;
  /** Every row of `_prisma_migrations`, oldest first; undefined when the table does not exist. */
  records(): Promise<MigrationRecord[] | undefined>;
  /** The columns of `table` where the migrations create it, in order; undefined when it does not exist. */
  columns(table: string): Promise<string[] | undefined>;
  /** Creates `_prisma_migrations` with Prisma's DDL for this database when it is missing. */
  ensureTable(): Promise<void>;
  /**
   * Runs the script and records it as Prisma Migrate does: a row started, one step counted, finished. Where the
   * database runs DDL in transactions, all of it in one, so a failure leaves neither the changes nor a record. Throws
   * MigrationFailedError (`partial` when some statements may stay applied, and the row stays started).
   */
  apply(migration: LedgerMigration): Promise<void>;
  /** Records the migration as applied without running it, as `prisma migrate resolve --applied` does. */
  recordApplied(migration: LedgerMigration): Promise<void>;
  /** Marks the started-but-unfinished rows of `name` rolled back, as `prisma migrate resolve --rolled-back` does; returns how many. */
  markRolledBack(name: string): Promise<number>;
  /** What a driver error means, for the CLI's advice. */
  classify(error: unknown): StoreProblem;
  close(): Promise<void>;
}
