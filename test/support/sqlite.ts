// SQLite databases for tests: a fresh file in a temporary folder with the shipped SQLite migrations (and the tests'
// business table) applied, and the generated SQLite test client on @prisma/adapter-better-sqlite3.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { PrismaClient } from "../generated-sqlite/client.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The SQLite migration SQL files of the package, in order. */
export function sqliteMigrationSql(): string[] {
  const dir = join(root, "prisma", "sqlite", "migrations");
  return readdirSync(dir)
    .filter((name) => /^\d+_/.test(name))
    .sort()
    .map((name) => readFileSync(join(dir, name, "migration.sql"), "utf8"));
}

/** Applies the migrations and the business table to the file at `path` (creating it). */
export function applySqliteSchema(path: string): void {
  const db = new Database(path);
  try {
    for (const sql of [...sqliteMigrationSql(), readFileSync(join(root, "test", "sql", "business-sqlite.sql"), "utf8")]) db.exec(sql);
  } finally {
    db.close();
  }
}

export interface SqliteTestDatabase {
  path: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database file with the task table and the business table; drop() deletes its folder. */
export async function createSqliteDatabase(): Promise<SqliteTestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "ptq-sqlite-"));
  const path = join(dir, "test.db");
  applySqliteSchema(path);
  return { path, url: `file:${path}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The generated SQLite test client on the adapter, for a test database. */
export function sqlitePrisma(url: string, options: { timeout?: number } = {}): PrismaClient {
  return new PrismaClient({ adapter: new PrismaBetterSqlite3(options.timeout === undefined ? { url } : { url, timeout: options.timeout }) });
}
