// A fresh database of one dialect for the standalone bench scripts (--dialect=postgresql|sqlite|mysql): a SQLite file,
// a database on the local MariaDB (or MYSQL_URL), or one on the PostgreSQL server of DATABASE_URL (else the local one)
// with the package's schema applied.

import { randomBytes } from "node:crypto";
import { databaseUrlFor, dropDatabase, onServer } from "../test/support/database.js";
import { createMysqlTestDatabase } from "../test/support/mysql-database.js";
import { applySchema } from "../test/support/schema.js";
import { createSqliteDatabase } from "../test/support/sqlite.js";

export async function dialectDatabase(dialect: string, namePrefix: string): Promise<{ url: string; drop(): Promise<unknown> }> {
  if (dialect === "sqlite") return createSqliteDatabase();
  if (dialect === "mysql") return createMysqlTestDatabase();
  const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `${namePrefix}_${randomBytes(4).toString("hex")}`;
  await onServer(serverUrl, [`CREATE DATABASE "${name}"`]);
  const url = databaseUrlFor(serverUrl, name);
  await applySchema(url);
  return { url, drop: () => dropDatabase(serverUrl, name) };
}
