// The dedupe key's unique index on PostgreSQL: keyless tasks stay out of it, the insert's key lookup probes it however
// large the table, and keys still dedupe when a migration made it a plain unique index.

import pg from "pg";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTasksParam, insertTasksSql } from "../../src/dialects/postgres/sql/insert-tasks.js";
import { pgTable } from "../../src/dialects/postgres/table.js";
import { prepareTask } from "../../src/enqueue/prepare.js";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import { taskTable } from "../../src/store/task-table.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";

const tasks = defineTasks({ "send-report": { payload: z.object({ reportId: z.string() }) } });
const table = pgTable(taskTable());
let db: TestDatabase;
let sql: pg.Pool;
let client: ReturnType<typeof extend>;

const extend = (url: string) => testPrisma(url).$extends(taskQueue({ tasks, logger: silentLogger }));

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  client = extend(db.url);
});

afterAll(async () => {
  await client?.$taskQueue.close();
  await client?.$disconnect();
  await sql?.end();
  await db?.drop();
});

describe("the existing-key lookup", () => {
  it("probes the key index instead of scanning the table, however many rows the table holds", async () => {
    await client.task.enqueueMany(Array.from({ length: 3000 }, (_, n) => ({ name: "send-report" as const, payload: { reportId: `s${n}` } })));
    await sql.query("ANALYZE tasks");
    const row = prepareTask(tasks, "send-report", { reportId: "probe" }, { key: `probe:${crypto.randomUUID()}` }, 262144);
    const connection = await sql.connect();
    try {
      await connection.query("BEGIN");
      const { rows } = await connection.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, FORMAT TEXT) ${insertTasksSql(table)}`, [insertTasksParam([row]), true]);
      await connection.query("ROLLBACK");
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).not.toMatch(/Seq Scan on tasks/);
      expect(plan).toMatch(/Index Scan using tasks_key_key/);
    } finally {
      connection.release();
    }
  });
});

describe("the key index", () => {
  it("leaves tasks without a key out of the unique key index", async () => {
    const { rows } = await sql.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'tasks_key_key'`);
    expect(rows[0]?.indexdef).toMatch(/UNIQUE INDEX tasks_key_key ON public\.tasks USING btree \(key\) WHERE \(key IS NOT NULL\)/);
  });

  it("still dedupes when a later migration made the index a plain unique index again", async () => {
    const other = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: other.url, max: 1 });
    const plain = extend(other.url);
    try {
      // What a Prisma migration that does not know partial indexes may write from `key String? @unique`.
      await pool.query(`DROP INDEX tasks_key_key; CREATE UNIQUE INDEX tasks_key_key ON tasks (key)`);
      const key = `plain:${crypto.randomUUID()}`;
      const first = await plain.task.enqueue("send-report", { reportId: "a" }, { key });
      const second = await plain.task.enqueue("send-report", { reportId: "b" }, { key });
      const keyless = await plain.task.enqueueMany([1, 2].map((n) => ({ name: "send-report" as const, payload: { reportId: `k${n}` } })));
      expect([first.created, second.created, second.id]).toEqual([true, false, first.id]);
      expect(keyless.map((task) => task.created)).toEqual([true, true]);
      expect((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks`)).rows[0]!.n).toBe(3);
    } finally {
      await plain.$taskQueue.close();
      await plain.$disconnect();
      await pool.end();
      await other.drop();
    }
  });
});
