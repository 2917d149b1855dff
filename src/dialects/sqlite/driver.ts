// Loads better-sqlite3, the SQLite dialect's driver: an optional peer dependency, so a PostgreSQL app installs
// nothing for it. Loaded when a store opens on a file: URL, through the optional-package loader.

import { optionalPackage } from "../../optional-package.js";

/** The part of a better-sqlite3 statement the dialect uses. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 database the dialect uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  /** Runs every statement of `source` (a migration script). */
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): void;
  readonly inTransaction: boolean;
}

export type DatabaseConstructor = new (path: string, options?: { fileMustExist?: boolean; timeout?: number }) => SqliteDatabase;

/** The better-sqlite3 Database class; throws MissingPackageError when it is not installed. */
export function betterSqlite3(): DatabaseConstructor {
  return optionalPackage<DatabaseConstructor>("better-sqlite3");
}
