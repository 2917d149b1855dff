// The demo's fresh database in the chosen mode: PostgreSQL gets a database ptq_demo created anew on the server;
// SQLite gets a new file. Both receive the shipped migrations, the tests' business table and the demo's run log.

import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { databaseUrlFor } from "../test/support/database.js";
import { testPrisma } from "../test/support/prisma.js";
import { applySchema } from "../test/support/schema.js";
import { applySqliteSchema, sqlitePrisma } from "../test/support/sqlite.js";
import type { DemoMode } from "./mode.js";

export interface DemoDatabase {
  url: string;
  /** A new plain Prisma client of the mode's dialect. */
  prisma(): ReturnType<typeof testPrisma>;
}

export async function createDemoDatabase(mode: DemoMode): Promise<DemoDatabase> {
  const demoSql = (name: string) => readFileSync(new URL(name, import.meta.url), "utf8");
  if (mode.kind === "sqlite") {
    mkdirSync(dirname(mode.file), { recursive: true });
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${mode.file}${suffix}`, { force: true });
    applySqliteSchema(mode.file);
    const db = new Database(mode.file);
    db.exec(demoSql("./schema-sqlite.sql"));
    db.close();
    const url = `file:${mode.file}`;
    // The two generated clients have the same models; the demo uses their common part.
    return { url, prisma: () => sqlitePrisma(url) as unknown as ReturnType<typeof testPrisma> };
  }
  const server = new pg.Client({ connectionString: mode.serverUrl });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS "ptq_demo" WITH (FORCE)`);
  await server.query(`CREATE DATABASE "ptq_demo"`);
  await server.end();
  const url = databaseUrlFor(mode.serverUrl, "ptq_demo");
  await applySchema(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(demoSql("./schema.sql"));
  await client.end();
  return { url, prisma: () => testPrisma(url) };
}
