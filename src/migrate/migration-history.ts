// What `_prisma_migrations` says about the app's migration folders: the half-applied and edited migrations that stop
// a run, and the pending folders in name order, as `prisma migrate deploy` picks them.
//
// As read in schema-engine/core/src/commands/apply_migrations.rs of https://github.com/prisma/prisma-engines: a record
// started but neither finished nor rolled back stops it; a folder without a record that is not rolled back is pending.

import { MigrationEditedError, MigrationHalfAppliedError, MigrationsFolderError } from "../errors.js";
import { checksumMatches, migrationChecksum } from "./checksum.js";
import type { MigrationRecord } from "./migration-ledger.js";
import type { MigrationFolder, MigrationsFolder } from "./migrations-folder.js";

/** The folders split by the records: applied (recorded, finished, not rolled back) and pending. */
interface MigrationHistory {
  applied: MigrationFolder[];
  pending: Array<MigrationFolder & { script: string }>;
}

/**
 * Compares the folder with the records. Throws MigrationHalfAppliedError for a record started but neither finished
 * nor rolled back, MigrationEditedError for an applied migration whose file changed, and MigrationsFolderError for a
 * pending folder without a readable migration.sql, or a folder locked to another database than `provider`.
 */
export function readHistory(folder: MigrationsFolder, records: readonly MigrationRecord[], provider: string): MigrationHistory {
  if (folder.lockedProvider !== undefined && folder.lockedProvider !== provider) {
    throw new MigrationsFolderError(
      folder.dir,
      `was written for ${folder.lockedProvider} (its migration_lock.toml says so), not for the ${provider} database the URL names. ` +
        `Point --database-url at the right database, or --migrations at the folder of this database's migrations.`,
    );
  }
  const failed = records.filter((record) => record.finishedAt === null && record.rolledBackAt === null);
  if (failed.length > 0) throw new MigrationHalfAppliedError(failed.map((r) => ({ name: r.migrationName, startedAt: r.startedAt, logs: r.logs })));

  const live = records.filter((record) => record.rolledBackAt === null);
  const recorded = new Set(live.map((record) => record.migrationName));
  const edited = folder.migrations.flatMap((migration) => {
    const record = live.find((candidate) => candidate.migrationName === migration.name);
    if (!record || migration.script === undefined || checksumMatches(migration.script, record.checksum)) return [];
    return [{ name: migration.name, file: migration.file, recorded: record.checksum, current: migrationChecksum(migration.script) }];
  });
  if (edited.length > 0) throw new MigrationEditedError(edited);

  const applied = folder.migrations.filter((migration) => recorded.has(migration.name));
  const waiting = folder.migrations.filter((migration) => !recorded.has(migration.name));
  const unreadable = waiting.filter((migration) => migration.script === undefined);
  if (unreadable.length > 0) {
    throw new MigrationsFolderError(
      folder.dir,
      `has ${unreadable.map((m) => m.name).join(", ")} without a readable migration.sql. Every folder in it is a migration: ` +
        `put its SQL in migration.sql, or move the folder out.`,
    );
  }
  return { applied, pending: waiting as MigrationHistory["pending"] };
}
