// Loads better-sqlite3, the SQLite dialect's driver: an optional peer dependency, so a PostgreSQL app installs
// nothing for it. Loaded only when a SQLite store opens, with an error that names the package to install.

import { createRequire } from "node:module";

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

type DatabaseConstructor = new (path: string, options?: { fileMustExist?: boolean; timeout?: number }) => SqliteDatabase;

/** better-sqlite3 is not installed. The error table (errors.ts) makes it a lasting problem that names the fix. */
export class DriverMissingError extends Error {
  readonly code = "PTQ_DRIVER_MISSING";
  constructor() {
    super("the better-sqlite3 package is not installed");
    this.name = "DriverMissingError";
  }
}

let constructor: DatabaseConstructor | undefined;

/** The better-sqlite3 Database class; throws DriverMissingError when it is not installed. */
export function betterSqlite3(): DatabaseConstructor {
  if (constructor) return constructor;
  try {
    constructor = createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new DriverMissingError();
  }
  return constructor;
}
