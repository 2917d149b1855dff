// `npm run db:setup`: creates the example's database if missing, then applies the prisma-task-queue migration shipped
// in the package and the example's own SQL (prisma/sql/*.sql) once each, recording them in example_migrations.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { databaseUrl } from "../src/settings";

const require = createRequire(import.meta.url);
const app = fileURLToPath(new URL("..", import.meta.url));

/** Every migration in order: the package's first (the task table), then the app's. */
function migrations(): Array<{ name: string; file: string }> {
  const packageDir = dirname(require.resolve("prisma-task-queue/package.json"));
  const packageMigrations = join(packageDir, "prisma", "migrations");
  const fromPackage = readdirSync(packageMigrations)
    .sort()
    .map((dir) => ({ name: `prisma-task-queue/${dir}`, file: join(packageMigrations, dir, "migration.sql") }));
  const appDir = join(app, "prisma", "sql");
  const fromApp = readdirSync(appDir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file) => ({ name: `app/${file}`, file: join(appDir, file) }));
  return [...fromPackage, ...fromApp];
}

async function createDatabaseIfMissing(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`db:setup: database name ${JSON.stringify(name)} in DATABASE_URL is not a plain identifier; use letters, digits and _.`);
  }
  const server = new URL(url);
  server.pathname = "/postgres";
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created meanwhile by another setup: fine
      });
      console.log(`db:setup: created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

async function applyMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS example_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const { name, file } of migrations()) {
      await client.query("BEGIN");
      try {
        // One setup at a time: a second one waits here, then sees the row and skips.
        await client.query("SELECT pg_advisory_xact_lock(hashtext('example_migrations'))");
        const done = await client.query("SELECT 1 FROM example_migrations WHERE name = $1", [name]);
        if (done.rowCount === 0) {
          await client.query(readFileSync(file, "utf8"));
          await client.query("INSERT INTO example_migrations (name) VALUES ($1)", [name]);
          console.log(`db:setup: applied ${name}`);
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`db:setup: ${name} (${file}) failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.end();
  }
}

const url = databaseUrl();
try {
  await createDatabaseIfMissing(url);
  await applyMigrations(url);
  console.log(`db:setup: ${new URL(url).pathname.slice(1)} is up to date`);
} catch (error) {
  console.error((error as Error).message);
  console.error(`Is PostgreSQL running at ${new URL(url).host}? Set DATABASE_URL to point at yours.`);
  process.exit(1);
}
