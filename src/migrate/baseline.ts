// Tables created outside Prisma Migrate, and --baseline: which pending task-queue migrations the existing tables
// already match, column for column, so that they are recorded as applied without running them.
//
// A pending migration of prisma-task-queue that would create a table already there (its SQL was run with the
// database's client, or an older setup made it) stops the run without --baseline. With it, the longest run of pending
// task-queue migrations whose tables match is recorded, as `prisma migrate resolve --applied` would record them.

import { MigrationBaselineError, MigrationForeignTableError } from "../errors.js";
import type { MigrationFolder } from "./migrations-folder.js";
import { isTaskQueueMigration, scriptEffect, type TableShapes } from "./table-shape.js";

/** The columns each table has in the database; undefined for a table that does not exist. */
type ExistingTables = ReadonlyMap<string, readonly string[] | undefined>;

type Readable = MigrationFolder & { script: string };

/** The tables that pending task-queue migrations create, whose columns `baselinePlan` needs. */
export function tablesToInspect(pending: readonly Readable[]): string[] {
  return [...new Set(pending.filter((m) => isTaskQueueMigration(m.script)).flatMap((m) => scriptEffect(m.script).creates))];
}

/**
 * The pending migrations to record without running them: none when no table they create exists. Throws
 * MigrationForeignTableError when one exists and `baseline` is false, MigrationBaselineError when no run of them
 * matches the existing tables' columns.
 */
export function baselinePlan(all: readonly MigrationFolder[], pending: readonly Readable[], existing: ExistingTables, baseline: boolean): Readable[] {
  // Shapes after each task-queue migration, applied in name order over the ones before it (recorded or not).
  const shapes = new Map<string, { creates: string[]; after: TableShapes }>();
  let current: TableShapes = new Map();
  for (const migration of all) {
    if (migration.script === undefined || !isTaskQueueMigration(migration.script)) continue;
    const effect = scriptEffect(migration.script, current);
    shapes.set(migration.name, effect);
    current = effect.after;
  }
  const candidates = pending.filter((migration) => shapes.has(migration.name));
  const foreign = candidates.flatMap((migration) =>
    shapes
      .get(migration.name)!
      .creates.filter((table) => existing.get(table) !== undefined)
      .map((table) => ({ table, migration: migration.name })),
  );
  if (foreign.length === 0) return [];
  if (!baseline) throw new MigrationForeignTableError([...new Set(foreign.map((f) => f.table))], [...new Set(foreign.map((f) => f.migration))]);

  const needed = Math.max(...foreign.map((f) => candidates.findIndex((m) => m.name === f.migration))) + 1;
  for (let length = candidates.length; length >= needed; length -= 1) {
    if (differences(candidates.slice(0, length), shapes, existing).length === 0) return candidates.slice(0, length);
  }
  throw new MigrationBaselineError(differences(candidates.slice(0, needed), shapes, existing));
}

/** How the tables created by `prefix` differ from their shape after its last migration. */
function differences(prefix: readonly Readable[], shapes: ReadonlyMap<string, { creates: string[]; after: TableShapes }>, existing: ExistingTables) {
  const last = shapes.get(prefix[prefix.length - 1]!.name)!.after;
  return prefix.flatMap((migration) =>
    shapes.get(migration.name)!.creates.flatMap((table) => {
      const expected = last.get(table);
      const actual = existing.get(table);
      if (expected === undefined) return actual === undefined ? [] : [{ table, migration: migration.name, missing: [], extra: [...actual], absent: false }];
      if (actual === undefined) return [{ table, migration: migration.name, missing: [...expected], extra: [], absent: true }];
      const missing = expected.filter((column) => !actual.includes(column));
      const extra = actual.filter((column) => !expected.includes(column));
      return missing.length || extra.length ? [{ table, migration: prefix[prefix.length - 1]!.name, missing, extra, absent: false }] : [];
    }),
  );
}
