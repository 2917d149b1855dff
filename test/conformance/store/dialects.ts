// The dialects the store-level suite runs on: a fresh database, its Prisma client, and a connection of the test's own
// for what no Store operation does (emptying the table, the advised index, seeing a writer wait on a lock).

import Database from "better-sqlite3";
import pg from "pg";
import type { StoreOptions } from "../../../src/open-store.js";
import type { LeaderInfo } from "../../../src/store/leader-lock.js";
import { createTestDatabase } from "../../support/database.js";
import { createMysqlTestDatabase, mysqlTestPool, runMysqlScripts } from "../../support/mysql-database.js";
import { testMysqlPrisma } from "../../support/mysql-prisma.js";
import { testPrisma } from "../../support/prisma.js";
import { createSqliteDatabase, sqlitePrisma } from "../../support/sqlite.js";

/** The part of a generated Prisma client the cases use. */
export interface StorePrisma {
  $extends(extension: unknown): unknown;
  $transaction(arg: unknown, options?: object): Promise<unknown>;
  $queryRawUnsafe(query: string, ...values: unknown[]): Promise<unknown>;
  $disconnect(): Promise<void>;
}

/** A connection of the test's own to the database: set-up and observation only, never an operation under test. */
export interface RawConnection {
  /** Runs a statement (set-up: emptying the table, creating or dropping the browse index). */
  exec(sql: string): Promise<void>;
  /** Empties the task table and the schedule tables beside it. */
  empty(): Promise<void>;
  /** Drops the index browseIndexAdvice() creates, when it exists. */
  dropBrowseIndex(): Promise<void>;
  /** The names of the indexes of `table` (and, on SQLite, of its companion tables), sorted. */
  indexNames(table: string): Promise<string[]>;
  /**
   * True once a writer of this database is held up by another transaction's lock: a session of this database waits
   * for a lock (PostgreSQL pg_locks, MySQL/MariaDB InnoDB's LOCK WAIT); SQLite: the write lock is held, so every
   * other writer waits.
   */
  writerBlocked(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreDialect {
  /** The store's `dialect`. */
  name: string;
  /** What stands between the stores and the server, when something does (a pooler). */
  through?: string;
  /** A fresh database with the task table; drop() removes it. */
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  /** A plain Prisma client of this dialect on `url`. */
  prismaClient(url: string): StorePrisma;
  /** A connection of the test's own on `url`. */
  raw(url: string): Promise<RawConnection>;
  /** What the bed's stores on `url` are opened with beside their pool size (the direct URL behind a pooler). */
  storeOptions?(url: string): Pick<StoreOptions, "directUrl">;
  /**
   * What a writer meets when another transaction is writing the same row: "row", that row alone is locked (claims and
   * marks skip it and report it locked, never waiting); "database", one write lock for the whole database (every other
   * writer waits for its commit).
   */
  writeLock: "row" | "database";
  /** True when the dialect has database notifications (store.notifications). */
  notifications: boolean;
  /** A URL of this dialect on which nothing answers; undefined when the dialect has no server to reach. */
  unreachableUrl?: string;
  /**
   * Takes the cleaners' leader lock away from `holder` (the table "tasks") as the database would lose it: the server ends
   * the holder's session, or another contender's lease is written over the holder's for a second.
   */
  loseLeaderLock(raw: RawConnection, holder: LeaderInfo): Promise<void>;
}

export const postgresStoreDialect: StoreDialect = {
  name: "postgresql",
  createDatabase: createTestDatabase,
  prismaClient: (url) => testPrisma(url),
  async raw(url) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("error", () => {});
    const exec = async (sql: string) => void (await pool.query(sql));
    return {
      exec,
      empty: () =>
        exec(
          "DELETE FROM tasks; DELETE FROM tasks_schedules; DELETE FROM tasks_schedule_slots; DELETE FROM tasks_queues; DELETE FROM tasks_queue_starts; DELETE FROM tasks_tallies; DELETE FROM tasks_steps; DELETE FROM tasks_events",
        ),
      dropBrowseIndex: () => exec('DROP INDEX IF EXISTS "tasks_browse_idx"'),
      async indexNames(table) {
        const { rows } = await pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 ORDER BY indexname", [table]);
        return rows.map((row) => row.name);
      },
      async writerBlocked() {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE NOT l.granted AND a.datname = current_database()`,
        );
        return rows[0]!.n > 0;
      },
      close: () => pool.end(),
    };
  },
  writeLock: "row",
  notifications: true,
  unreachableUrl: "postgresql://postgres@127.0.0.1:1/postgres",
  loseLeaderLock: (raw, holder) => raw.exec(`SELECT pg_terminate_backend(${Number(holder.pid)})`),
};

export const sqliteStoreDialect: StoreDialect = {
  name: "sqlite",
  createDatabase: createSqliteDatabase,
  prismaClient: (url) => sqlitePrisma(url),
  async raw(url) {
    // Busy timeout 0: a statement that meets the write lock fails at once, and exec() retries it without blocking the
    // event loop (the store under test may be the one holding the lock, in this process).
    const db = new Database(url.replace(/^file:/, ""), { timeout: 0 });
    const exec = async (sql: string) => {
      for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
        try {
          db.exec(sql);
          return;
        } catch (error) {
          if (!String((error as { code?: unknown }).code).startsWith("SQLITE_BUSY")) throw error;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    };
    return {
      exec,
      empty: () =>
        exec(
          "DELETE FROM tasks; DELETE FROM tasks_schedules; DELETE FROM tasks_schedule_slots; DELETE FROM tasks_queues; DELETE FROM tasks_queue_starts; DELETE FROM tasks_tallies; DELETE FROM tasks_steps; DELETE FROM tasks_events",
        ),
      dropBrowseIndex: () => exec('DROP INDEX IF EXISTS "tasks_browse_idx"'),
      async indexNames(table) {
        const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE ? ORDER BY name").all(`${table}%`) as Array<{ name: string }>;
        return rows.map((row) => row.name);
      },
      async writerBlocked() {
        try {
          db.exec("BEGIN IMMEDIATE");
        } catch (error) {
          if (String((error as { code?: unknown }).code).startsWith("SQLITE_BUSY")) return true;
          throw error;
        }
        db.exec("ROLLBACK");
        return false;
      },
      close: async () => void db.close(),
    };
  },
  writeLock: "database",
  notifications: false,
  loseLeaderLock: (raw) => raw.exec(`UPDATE "tasks_leaders" SET holder = 'another cleaner', expires_at = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', '+1 seconds')`),
};

export const mysqlStoreDialect: StoreDialect = {
  name: "mysql",
  createDatabase: () => createMysqlTestDatabase(),
  prismaClient: (url) => testMysqlPrisma(url),
  async raw(url) {
    const parsed = new URL(url);
    const pool = mysqlTestPool({ serverUrl: url, name: parsed.pathname.slice(1) }, 1);
    let lastRead = 0;
    // Scripts of several statements (a migration) go through a connection that allows them.
    const exec = (sql: string) => runMysqlScripts(url, parsed.pathname.slice(1), [sql]);
    return {
      exec,
      async empty() {
        for (const table of ["tasks", "tasks_schedules", "tasks_schedule_slots", "tasks_queues", "tasks_queue_starts", "tasks_tallies", "tasks_steps", "tasks_events"])
          await pool.query(`DELETE FROM ${table}`);
      },
      async indexNames(table) {
        const rows = await pool.query<Array<{ name: string }>>(
          "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY INDEX_NAME",
          [table],
        );
        return rows.map((row) => row.name);
      },
      async dropBrowseIndex() {
        const rows = await pool.query<unknown[]>(
          "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tasks' AND INDEX_NAME = 'tasks_queue_name_status_id_idx'",
        );
        if (rows.length > 0) await pool.query("DROP INDEX `tasks_queue_name_status_id_idx` ON tasks");
      },
      async writerBlocked() {
        // InnoDB refreshes what information_schema.INNODB_TRX shows only after 100 ms without a read of it: polled
        // faster, it keeps showing an old picture.
        const idle = lastRead + 110 - Date.now();
        if (idle > 0) await new Promise((resolve) => setTimeout(resolve, idle));
        lastRead = Date.now();
        const rows = await pool.query<Array<{ n: number | bigint }>>(
          `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
           WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()`,
        );
        return Number(rows[0]!.n) > 0;
      },
      close: () => pool.end(),
    };
  },
  writeLock: "row",
  notifications: false,
  unreachableUrl: "mysql://root@127.0.0.1:1/none",
  loseLeaderLock: (raw, holder) => raw.exec(`KILL CONNECTION ${Number(holder.pid)}`),
};

export const STORE_DIALECTS: readonly StoreDialect[] = [postgresStoreDialect, sqliteStoreDialect, mysqlStoreDialect];
