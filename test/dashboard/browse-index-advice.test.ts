// The dashboard advises the browse index only where it matters: not on a fresh install (the shipped migration does not
// create it), only once the table holds BROWSE_INDEX_ADVICE_ROWS tasks, and not once the index exists. Each dialect
// counts the table only up to the threshold.

import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSE_INDEX_ADVICE_ROWS } from "../../src/dashboard/dashboard-context.js";
import { startDashboardServer, type DashboardServer } from "../../src/dashboard/server.js";
import { openStore, type Store } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";
import { insertMysqlRows } from "../mysql/rows.js";
import { createBrowseIndex, insertTask, recordingLogger } from "./fixtures.js";

const NOTE = "The task table has no browse index";

let database: TestDatabase;
let sql: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

/** The overview's HTML and what the dashboard logged, from a dashboard started now (so nothing is cached). */
async function overview(): Promise<{ html: string; warnings: Array<{ message: string; fields: Record<string, unknown> }> }> {
  const logger = recordingLogger();
  let server: DashboardServer | undefined;
  try {
    server = await startDashboardServer({ databaseUrl: database.url, port: 0, logger });
    const html = await (await fetch(server.url)).text();
    expect(html).toContain("<title>Overview · Task queue</title>");
    return { html, warnings: logger.lines.filter((line) => line.level === "warn").map(({ message, fields }) => ({ message, fields })) };
  } finally {
    await server?.close();
  }
}

describe("the browse index advice on PostgreSQL", () => {
  it("is not given on a fresh install: the shipped migration has no browse index, and a small table needs none", async () => {
    await insertTask(sql, { name: "send-email", status: "dead", lastError: "Error: boom" });
    const { html, warnings } = await overview();
    expect(html).not.toContain(NOTE);
    expect(warnings).toEqual([]);
  });

  it(`is given, once, from ${BROWSE_INDEX_ADVICE_ROWS.toLocaleString("en-US")} tasks on`, async () => {
    await sql.query(
      `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, finished_at)
       SELECT gen_random_uuid(), 'send-email', 'default', '{}', 'succeeded', now(), 1, now() FROM generate_series(1, $1::int)`,
      [BROWSE_INDEX_ADVICE_ROWS],
    );
    const { html, warnings } = await overview();
    expect(html).toContain(`${NOTE}, so counts and filtered lists scan the whole table (see the dashboard docs).`);
    expect(warnings).toEqual([
      {
        message: "the task table has no browse index and at least 100,000 tasks: the dashboard's counts and filtered lists scan it",
        fields: { create: 'CREATE INDEX "tasks_browse_idx" ON "tasks" ("queue", "name", "status", "id");' },
      },
    ]);
  });

  it("is not given once the index exists", async () => {
    await createBrowseIndex(sql);
    const { html, warnings } = await overview();
    expect(html).not.toContain(NOTE);
    expect(warnings).toEqual([]);
  });
});

describe("countTasksUpTo", () => {
  async function expectCounts(store: Store, rows: number): Promise<void> {
    expect(await store.countTasksUpTo(rows + 5)).toBe(rows);
    expect(await store.countTasksUpTo(rows)).toBe(rows);
    expect(await store.countTasksUpTo(2)).toBe(2);
  }

  it("counts up to the limit on SQLite", async () => {
    const db: SqliteTestDatabase = await createSqliteDatabase();
    const store = openStore(db.url);
    try {
      expect(await store.countTasksUpTo(10)).toBe(0);
      const file = new Database(db.path);
      try {
        const insert = file.prepare("INSERT INTO tasks (id, name, queue, payload, run_at) VALUES (?, 'n', 'default', '{}', '2026-01-01T00:00:00.000+00:00')");
        for (let i = 0; i < 4; i++) insert.run(`00000000-0000-7000-8000-00000000000${i}`);
      } finally {
        file.close();
      }
      await expectCounts(store, 4);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  it("counts up to the limit on MySQL/MariaDB", async () => {
    const db: MysqlTestDatabase = await createMysqlTestDatabase();
    const pool = mysqlTestPool(db);
    const store = openStore(db.url, { max: 1 });
    try {
      await insertMysqlRows(pool, [{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }]);
      await expectCounts(store, 4);
    } finally {
      await store.close();
      await pool.end();
      await db.drop();
    }
  });

  it("counts up to the limit on PostgreSQL", async () => {
    const store = openStore(database.url, { max: 1 });
    try {
      // The table now holds one task plus BROWSE_INDEX_ADVICE_ROWS (the tests above).
      expect(await store.countTasksUpTo(BROWSE_INDEX_ADVICE_ROWS + 5)).toBe(BROWSE_INDEX_ADVICE_ROWS + 1);
      expect(await store.countTasksUpTo(BROWSE_INDEX_ADVICE_ROWS)).toBe(BROWSE_INDEX_ADVICE_ROWS);
      expect(await store.countTasksUpTo(7)).toBe(7);
    } finally {
      await store.close();
    }
  });
});
