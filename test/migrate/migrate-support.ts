// What the `task-runner migrate` tests share: an app's migrations folder in a temporary directory (the package's
// shipped migration folders copied into it, and the app's own), the command run in-process, and `_prisma_migrations`
// read back with each dialect's own SQL.

import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/cli/run-cli.js";
import type { UpgradeDatabase, UpgradeDialect } from "../upgrade/upgrade-databases.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The folder of a dialect's shipped migrations. */
export function shippedFolder(dialect: UpgradeDialect): string {
  return join(root, dialect.migrations);
}

/** The shipped migration folders of a dialect, oldest first. */
export function shippedMigrations(dialect: UpgradeDialect): string[] {
  return readdirSync(shippedFolder(dialect))
    .filter((name) => /^\d{14}_/.test(name))
    .sort();
}

/** An app's prisma/migrations folder, removed by remove(). */
export class AppFolder {
  readonly root = mkdtempSync(join(tmpdir(), "ptq-migrate-"));
  readonly dir = join(this.root, "prisma", "migrations");

  constructor() {
    mkdirSync(this.dir, { recursive: true });
  }

  /** Copies shipped migration folders of `dialect` in, under their own names. */
  addShipped(dialect: UpgradeDialect, names: readonly string[]): void {
    for (const name of names) cpSync(join(root, dialect.migrations, name), join(this.dir, name), { recursive: true });
  }

  /** Writes a migration folder of the app's own. */
  add(name: string, sql: string): void {
    mkdirSync(join(this.dir, name), { recursive: true });
    writeFileSync(join(this.dir, name, "migration.sql"), sql);
  }

  /** The path of a migration's migration.sql. */
  file(name: string): string {
    return join(this.dir, name, "migration.sql");
  }

  /** SHA-256 of the file's bytes, in hex, computed here without the code under test. */
  checksum(name: string): string {
    return createHash("sha256")
      .update(readFileSync(this.file(name)))
      .digest("hex");
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface MigrateRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `task-runner migrate --database-url <url> --migrations <app's folder> …args` in this process, in the app's root. */
export async function migrate(url: string, app: AppFolder, ...args: string[]): Promise<MigrateRun> {
  let out = "";
  let err = "";
  const code = await runCli(["migrate", "--database-url", url, "--migrations", app.dir, ...args], {
    cwd: app.root,
    out: (text) => (out += text),
    err: (text) => (err += text),
    env: {},
    stderrIsTTY: false,
  });
  return { code, out, err };
}

/** A row of `_prisma_migrations`, with the times reduced to whether they are set. */
export interface RecordRow {
  id: string;
  checksum: string;
  migration_name: string;
  logs: string | null;
  applied_steps_count: number;
  started: boolean;
  finished: boolean;
  rolled_back: boolean;
}

/** Every row of `_prisma_migrations`, by migration name then start. */
export async function recordRows(database: UpgradeDatabase): Promise<RecordRow[]> {
  const rows = await database.query<Record<string, unknown>>(
    `SELECT id, checksum, migration_name, logs, applied_steps_count, started_at, finished_at, rolled_back_at
     FROM _prisma_migrations ORDER BY migration_name, started_at`,
  );
  return rows.map((row) => ({
    id: String(row.id),
    checksum: String(row.checksum),
    migration_name: String(row.migration_name),
    logs: typeof row.logs === "string" ? row.logs : null,
    applied_steps_count: Number(row.applied_steps_count),
    started: row.started_at !== null,
    finished: row.finished_at !== null,
    rolled_back: row.rolled_back_at !== null,
  }));
}

/** Whether a table exists, through the dialect's catalog. */
export async function tableExists(dialect: UpgradeDialect, database: UpgradeDatabase, table: string): Promise<boolean> {
  return (await tableColumns(dialect, database, table)).length > 0;
}

/** The columns of a table as the dialect's catalog lists them, in order. */
export async function tableColumns(dialect: UpgradeDialect, database: UpgradeDatabase, table: string): Promise<string[]> {
  const sql = {
    postgresql: `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    sqlite: `SELECT name FROM pragma_table_info(?)`,
    mysql: `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position`,
  }[dialect.name]!;
  return (await database.query<{ name: string }>(sql, [table])).map((row) => row.name);
}

/** Inserts a row as a failed `prisma migrate deploy` leaves it, a minute ago: started, no step counted, logs set, not finished. */
export async function insertFailedRecord(dialect: UpgradeDialect, database: UpgradeDatabase, name: string, checksum: string): Promise<void> {
  const at = new Date(Date.now() - 60_000);
  const [sql, started] = {
    postgresql: [`INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at) VALUES ($1, $2, $3, $4, $5)`, at],
    sqlite: [`INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at) VALUES (?, ?, ?, ?, ?)`, at.getTime()],
    mysql: [
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at) VALUES (?, ?, ?, ?, ?)`,
      at.toISOString().replace("T", " ").replace("Z", ""),
    ],
  }[dialect.name]! as [string, unknown];
  await database.query(sql, ["7b0e7e55-7a52-4a29-9f0e-3c1d2f4a5b6c", checksum, name, "Database error code: 40P01\nDatabase error: deadlock detected", started]);
}
