// The databases the upgrade harness runs on, one per dialect: an empty database that takes migrations one at a time,
// and the rows an older version of the app left in it (written with the columns every schema since the first has).

import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { inject } from "vitest";
import { nowPlus } from "../../src/dialects/sqlite/clock.js";
import { uniquePrefix } from "../support/broker.js";
import { databaseUrlFor, dropDatabase, onServer } from "../support/database.js";
import { createMysqlTestDatabase, mysqlTestPool, runMysqlScripts } from "../support/mysql-database.js";
import { businessSql } from "../support/schema.js";

/** The tasks the harness seeds, by the state they were in when the newer migrations ran. */
export interface SeededTasks {
  pending: string;
  delayed: string;
  /** Running on a worker that is still alive during the upgrade: it finishes (here: lets go) after it. */
  running: string;
  /** Running on a worker that died before the upgrade: its lease expired; the cleaner recovers it. */
  orphaned: string;
  dead: string;
  succeeded: string;
}

/** One seeded row: its status and how far its times sit from the database's clock. */
export interface SeedRow {
  status: string;
  runAtMs?: number;
  leaseOwner?: string;
  leaseMs?: number;
  attempts?: number;
  finished?: boolean;
}

/** An empty database of one dialect. */
export interface UpgradeDatabase {
  /** What openStore() takes. */
  url: string;
  /** Runs one migration's SQL. */
  apply(sql: string): Promise<void>;
  /** Runs one statement with positional parameters ($1 on PostgreSQL, ? elsewhere) and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Creates the tests' business tables (after the older migrations, as an app's own migrations would). */
  business(): Promise<void>;
  /** Inserts one task row as the older version wrote it; returns its id. */
  insert(row: SeedRow): Promise<string>;
  /** The database's clock now, in Unix milliseconds (the clock its timestamps and migrations read). */
  clockMs(): Promise<number>;
  close(): Promise<void>;
}

export interface UpgradeDialect {
  name: string;
  /** The dialect's shipped migrations folder, relative to the package root. */
  migrations: string;
  open(): Promise<UpgradeDatabase>;
}

const SEED_COLUMNS = "id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at, finished_at, last_error";

export const postgresUpgrade: UpgradeDialect = {
  name: "postgresql",
  migrations: "prisma/migrations",
  async open() {
    const serverUrl = inject("databaseUrl");
    const name = `ptq_upgrade_${uniquePrefix().slice(-10)}`;
    await onServer(serverUrl, [`CREATE DATABASE "${name}"`]);
    const url = databaseUrlFor(serverUrl, name);
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    return {
      url,
      apply: async (text) => void (await sql.query(text)),
      query: async <Row>(text: string, params: unknown[] = []) => (await sql.query(text, params)).rows as Row[],
      business: async () => void (await sql.query(businessSql())),
      async insert(row) {
        const { rows } = await sql.query<{ id: string }>(
          `INSERT INTO tasks (${SEED_COLUMNS})
           VALUES (gen_random_uuid(), 'run', 'default', '{"ms":0}', $1, now() + $2 * interval '1 millisecond', $3, $4,
                   CASE WHEN $5::int IS NULL THEN NULL ELSE now() + $5 * interval '1 millisecond' END,
                   CASE WHEN $6 THEN now() END, CASE WHEN $1 = 'dead' THEN 'Error: before the upgrade' END)
           RETURNING id::text AS id`,
          [row.status, row.runAtMs ?? 0, row.attempts ?? 0, row.leaseOwner ?? null, row.leaseMs ?? null, row.finished ?? false],
        );
        return rows[0]!.id;
      },
      clockMs: async () => Number((await sql.query<{ ms: string }>(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS ms`)).rows[0]!.ms),
      async close() {
        await sql.end().catch(() => {});
        await dropDatabase(serverUrl, name);
      },
    };
  },
};

export const sqliteUpgrade: UpgradeDialect = {
  name: "sqlite",
  migrations: "prisma/sqlite/migrations",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "ptq-upgrade-"));
    const path = join(dir, "app.db");
    const db = new Database(path);
    return {
      url: `file:${path}`,
      apply: async (text) => void db.exec(text),
      async query<Row>(text: string, params: unknown[] = []) {
        const statement = db.prepare(text);
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
      },
      business: async () => void db.exec(readFileSync(new URL("../sql/business-sqlite.sql", import.meta.url), "utf8")),
      async insert(row) {
        const id = randomUUID();
        db.prepare(
          `INSERT INTO tasks (${SEED_COLUMNS})
           VALUES (?, 'run', 'default', '{"ms":0}', ?, ${nowPlus("?")}, ?, ?,
                   CASE WHEN ? IS NULL THEN NULL ELSE ${nowPlus("?")} END,
                   CASE WHEN ? THEN ${nowPlus("0")} END, CASE WHEN ? = 'dead' THEN 'Error: before the upgrade' END)`,
        ).run(id, row.status, row.runAtMs ?? 0, row.attempts ?? 0, row.leaseOwner ?? null, row.leaseMs ?? null, row.leaseMs ?? 0, row.finished ? 1 : 0, row.status);
        return id;
      },
      clockMs: async () => (db.prepare(`SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) AS ms`).get() as { ms: number }).ms,
      async close() {
        if (db.open) db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const mysqlUpgrade: UpgradeDialect = {
  name: "mysql",
  migrations: "prisma/mysql/migrations",
  async open() {
    const database = await createMysqlTestDatabase({ migrate: false });
    const pool = mysqlTestPool(database);
    const now = "UTC_TIMESTAMP(6)";
    return {
      url: database.url,
      apply: (text) => runMysqlScripts(database.serverUrl, database.name, [text]),
      query: async <Row>(text: string, params: unknown[] = []) => {
        const result: unknown = await pool.query(text, params);
        return (Array.isArray(result) ? result : []) as Row[];
      },
      business: async () => {}, // createMysqlTestDatabase({ migrate: false }) already made them
      async insert(row) {
        const id = randomUUID();
        await pool.query(
          `INSERT INTO tasks (${SEED_COLUMNS})
           VALUES (?, 'run', 'default', '{"ms":0}', ?, ${now} + INTERVAL ? * 1000 MICROSECOND, ?, ?,
                   CASE WHEN ? IS NULL THEN NULL ELSE ${now} + INTERVAL ? * 1000 MICROSECOND END,
                   CASE WHEN ? THEN ${now} END, CASE WHEN ? = 'dead' THEN 'Error: before the upgrade' END)`,
          [id, row.status, row.runAtMs ?? 0, row.attempts ?? 0, row.leaseOwner ?? null, row.leaseMs ?? null, row.leaseMs ?? 0, row.finished ? 1 : 0, row.status],
        );
        return id;
      },
      async clockMs() {
        const rows = await pool.query<Array<{ ms: unknown }>>(`SELECT FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000) AS ms`);
        return Number(rows[0]!.ms);
      },
      async close() {
        await pool.end().catch(() => {});
        await database.drop();
      },
    };
  },
};
