// Applies the shipped SQL migration (and the tests' business tables) to a database with pg.
// prisma migrate cannot run here, so this is how every test database and the demo get their tables.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The migration SQL files of the package, in order. */
export function migrationSql(): string[] {
  const dir = `${root}prisma/migrations`;
  return readdirSync(dir)
    .filter((name) => /^\d+_/.test(name))
    .sort()
    .map((name) => readFileSync(`${dir}/${name}/migration.sql`, "utf8"));
}

export function businessSql(): string {
  return readFileSync(`${root}test/sql/business.sql`, "utf8");
}

/** Runs the migrations and the business tables on `databaseUrl`. */
export async function applySchema(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const sql of [...migrationSql(), businessSql()]) await client.query(sql);
  } finally {
    await client.end();
  }
}
