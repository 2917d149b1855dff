// Reads an app's Prisma migrations folder as `prisma migrate deploy` lists it: every sub-folder a migration, ordered
// by name, its script the UTF-8 text of its migration.sql, and the database migration_lock.toml names.
//
// As in packages/migrate/src/utils/listMigrations.ts of https://github.com/prisma/prisma.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MigrationsFolderError } from "../errors.js";

/** One migration folder of the app. */
export interface MigrationFolder {
  /** The folder's name, which `_prisma_migrations.migration_name` records: "20261121000000_tasks_task_queue". */
  name: string;
  /** The path of its migration.sql. */
  file: string;
  /** The text of migration.sql; undefined when the folder has none (or it cannot be read). */
  script: string | undefined;
}

/** The folder's migrations in the order Prisma applies them, and the provider its migration_lock.toml names. */
export interface MigrationsFolder {
  dir: string;
  migrations: MigrationFolder[];
  /** The `provider` of migration_lock.toml ("postgresql", "sqlite", "mysql"); undefined without the file. */
  lockedProvider: string | undefined;
}

/** Lists `dir`; throws MigrationsFolderError when it is not a folder. */
export function readMigrationsFolder(dir: string): MigrationsFolder {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new MigrationsFolderError(
      dir,
      `does not exist. Run \`task-runner init\` to write the task table's migration there, or pass the folder that holds your ` + `migrations with --migrations <dir>.`,
    );
  }
  const migrations = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => {
      const file = join(dir, name, "migration.sql");
      let script: string | undefined;
      try {
        script = readFileSync(file, "utf8");
      } catch {
        script = undefined;
      }
      return { name, file, script };
    });
  return { dir, migrations, lockedProvider: lockedProvider(dir) };
}

/** The provider line of migration_lock.toml, read as Prisma reads it (the first line starting with "provider"). */
function lockedProvider(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, "migration_lock.toml"), "utf8");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((candidate) => candidate.startsWith("provider"));
  return line === undefined
    ? "<no provider line>"
    : line
        .replace(/^provider = /, "")
        .trim()
        .replace(/^"+|"+$/g, "");
}
