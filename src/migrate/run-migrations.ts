// `task-runner migrate` without its command line: checks the app's migrations folder against `_prisma_migrations`
// under Prisma Migrate's lock, then records (--baseline) and applies what is pending, reporting each step.

import { MigrationNotFailedError } from "../errors.js";
import { baselinePlan, tablesToInspect } from "./baseline.js";
import { migrationChecksum } from "./checksum.js";
import { readHistory } from "./migration-history.js";
import type { LedgerMigration, MigrationLedger } from "./migration-ledger.js";
import { readMigrationsFolder, type MigrationFolder } from "./migrations-folder.js";

/** One thing done (or, with dryRun, that would be done) to one migration. */
export interface MigrationStep {
  action: "apply" | "baseline";
  name: string;
  /** False with dryRun. */
  done: boolean;
}

/** Options of runMigrations(). */
interface RunMigrationsOptions {
  /** The app's migrations folder (each sub-folder a migration with its migration.sql). Required. */
  dir: string;
  /** Check and list what would be recorded and applied, without taking the lock or changing anything. Default false. */
  dryRun?: boolean;
  /**
   * Record the pending task-queue migrations whose tables already exist with their columns (created outside Prisma
   * Migrate) as applied without running them, then apply the rest. Default false: such a table stops the run.
   */
  baseline?: boolean;
  /** Called after each step (before the next one starts). Default: nothing. */
  onStep?: (step: MigrationStep) => void;
}

/** What a run found and did. */
interface RunMigrationsResult {
  /** Migrations recorded before this run (finished, not rolled back) that have a folder. */
  alreadyApplied: number;
  /** Migrations in the folder. */
  total: number;
  baselined: string[];
  applied: string[];
}

/** Brings the database up to the folder, or throws the TaskQueueError that says why not (nothing after it runs). */
export async function runMigrations(ledger: MigrationLedger, options: RunMigrationsOptions): Promise<RunMigrationsResult> {
  const folder = readMigrationsFolder(options.dir);
  const dryRun = options.dryRun ?? false;
  if (!dryRun) await ledger.lock();
  const history = readHistory(folder, (await ledger.records()) ?? [], ledger.provider);
  const existing = new Map<string, string[] | undefined>();
  for (const table of tablesToInspect(history.pending)) existing.set(table, await ledger.columns(table));
  const toRecord = baselinePlan(folder.migrations, history.pending, existing, options.baseline ?? false);
  const toApply = history.pending.filter((migration) => !toRecord.includes(migration));

  const result: RunMigrationsResult = { alreadyApplied: history.applied.length, total: folder.migrations.length, baselined: [], applied: [] };
  if (!dryRun && toRecord.length + toApply.length > 0) await ledger.ensureTable();
  for (const migration of toRecord) {
    if (!dryRun) await ledger.recordApplied(ledgerMigration(migration));
    result.baselined.push(migration.name);
    options.onStep?.({ action: "baseline", name: migration.name, done: !dryRun });
  }
  for (const migration of toApply) {
    if (!dryRun) await ledger.apply(ledgerMigration(migration));
    result.applied.push(migration.name);
    options.onStep?.({ action: "apply", name: migration.name, done: !dryRun });
  }
  return result;
}

/**
 * Marks the failed (started, unfinished) record of `name` rolled back, so that the next run applies it again, as
 * `prisma migrate resolve --rolled-back` does. Throws MigrationNotFailedError when there is no such record.
 */
export async function markRolledBack(ledger: MigrationLedger, name: string): Promise<void> {
  await ledger.lock();
  if ((await ledger.markRolledBack(name)) > 0) return;
  const finished = ((await ledger.records()) ?? []).some((record) => record.migrationName === name && record.finishedAt !== null && record.rolledBackAt === null);
  throw new MigrationNotFailedError(name, finished ? "finished" : "unrecorded");
}

function ledgerMigration(migration: MigrationFolder & { script: string }): LedgerMigration {
  return { name: migration.name, script: migration.script, checksum: migrationChecksum(migration.script) };
}
