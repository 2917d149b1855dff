// The dashboard's hints about a due task that waits fit the transport: where wake-ups are sent (NOTIFY) a task never
// woken points at the cleaner; where workers poll (SQLite or MySQL without a broker, wakeups: "polling") no wake-up is
// ever sent, so it points at the workers instead of counting every due task as "never woken (cleaner?)".

import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardServer, type DashboardServer } from "../../src/dashboard/server.js";
import { silentLogger, type WakeupsChoice } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";
import { insertTask } from "./fixtures.js";

const NEVER_WOKEN = /never woken \(cleaner\?\)/;
const CLEANER_HINT = "the cleaner publishes it on its next sweep";
const POLLING_HINT = "Workers find due tasks by polling (no wake-ups are sent here): is a worker running for queue &quot;default&quot;?";

/** The overview's and the task page's HTML from a dashboard on `databaseUrl`. */
async function pages(databaseUrl: string, id: string, wakeups?: WakeupsChoice): Promise<{ overview: string; task: string }> {
  let server: DashboardServer | undefined;
  try {
    server = await startDashboardServer({ databaseUrl, port: 0, logger: silentLogger, wakeups });
    const base = server.url.replace(/\/$/, "");
    return { overview: await (await fetch(`${base}/`)).text(), task: await (await fetch(`${base}/tasks/${id}`)).text() };
  } finally {
    await server?.close();
  }
}

describe("on PostgreSQL", () => {
  let database: TestDatabase;
  let sql: pg.Pool;
  let id: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new pg.Pool({ connectionString: database.url, max: 1 });
    id = await insertTask(sql, { name: "send-email", runInSeconds: -120, published: false });
  });
  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  it("with NOTIFY, a due task never woken points at the cleaner", async () => {
    const { overview, task } = await pages(database.url, id);
    expect(overview).toMatch(NEVER_WOKEN);
    expect(task).toContain(CLEANER_HINT);
  });

  it('with wakeups: "polling", it points at the workers', async () => {
    const { overview, task } = await pages(database.url, id, "polling");
    expect(overview).not.toMatch(NEVER_WOKEN);
    expect(task).not.toContain(CLEANER_HINT);
    expect(task).toContain(POLLING_HINT);
  });
});

describe("on SQLite without a broker", () => {
  let db: SqliteTestDatabase;
  const id = "01930000-0000-7000-8000-000000000001";
  beforeAll(async () => {
    db = await createSqliteDatabase();
    const file = new Database(db.path);
    try {
      const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString().replace("Z", "+00:00");
      file
        .prepare("INSERT INTO tasks (id, name, queue, payload, run_at, created_at, updated_at) VALUES (?, 'send-email', 'default', '{}', ?, ?, ?)")
        .run(id, twoMinutesAgo, twoMinutesAgo, twoMinutesAgo);
    } finally {
      file.close();
    }
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a due task points at the polling workers, not at the cleaner", async () => {
    const { overview, task } = await pages(db.url, id);
    expect(overview).toContain('data-card="due"');
    expect(overview).not.toMatch(NEVER_WOKEN);
    expect(task).not.toContain(CLEANER_HINT);
    expect(task).toContain(POLLING_HINT);
  });
});
