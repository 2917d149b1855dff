// The fast insert statements (a keyless batch, one keyless task) write the same rows and return the same results as
// the general statement that dedupes by key, and a batch with any key still takes the general statement.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { z } from "zod";
import type { Db } from "../../src/dialects/postgres/db.js";
import { insertRequest } from "../../src/dialects/postgres/insert-request.js";
import { prismaDb } from "../../src/dialects/postgres/prisma-db.js";
import { insertKeylessTasksSql, insertOneKeylessTaskSql } from "../../src/dialects/postgres/sql/insert-keyless-tasks.js";
import { insertTasksParam, insertTasksSql } from "../../src/dialects/postgres/sql/insert-tasks.js";
import { pgTable } from "../../src/dialects/postgres/table.js";
import { prepareTask, type EnqueueOptions } from "../../src/enqueue/prepare.js";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import type { InsertedTask, PreparedTask } from "../../src/store/enqueue-rows.js";
import { taskTable } from "../../src/store/task-table.js";
import { type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { setupDatabase, tasks } from "./fixtures.js";

/** The enqueue tests' tasks and one whose payload may be anything JSON can hold, null included. */
const registry = defineTasks({ ...tasks, note: { payload: z.unknown() } });

interface Input {
  name: "send-report" | "resize-image" | "note";
  payload: unknown;
  options?: EnqueueOptions;
}

const table = pgTable(taskTable());
let db: TestDatabase;
let prisma: ReturnType<typeof testPrisma>;
let extended: ReturnType<typeof withoutBroker>;
let sql: pg.Pool;

beforeAll(async () => {
  db = await setupDatabase();
  prisma = testPrisma(db.url);
  extended = withoutBroker(db.url);
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await extended?.$taskQueue.close();
  await extended?.$disconnect();
  await prisma?.$disconnect();
  await sql?.end();
  await db?.drop();
});

/** The extension with no amqpUrl: nothing is published, the statements are the same. */
function withoutBroker(url: string) {
  return testPrisma(url).$extends(taskQueue({ tasks: registry, logger: silentLogger }));
}

const prepare = (inputs: readonly Input[]) => inputs.map((input) => prepareTask(registry, input.name, input.payload, input.options, 262144));

/** What the table holds for `rows`, in their order, with each id replaced by its index (as published_at and run_at compare). */
async function stored(rows: readonly PreparedTask[]) {
  const { rows: found } = await sql.query(
    `SELECT id::text AS id, name, queue, payload, status, priority, run_at, max_attempts, key, published_at, created_at, attempts
     FROM tasks WHERE id = ANY($1::uuid[])`,
    [rows.map((row) => row.id)],
  );
  expect(found).toHaveLength(rows.length);
  const byId = new Map(found.map((row) => [row.id as string, row]));
  return rows.map((row, index) => ({ ...byId.get(row.id), id: index }));
}

/** The statement insertRequest picks for `rows`, and the request itself, sent through `db`. */
function pick(db: Db, rows: readonly PreparedTask[], publishes: boolean) {
  let sql = "";
  const recording: Db = { ...db, request: (text, values) => ((sql = text), db.request(text, values)) };
  const insert = insertRequest(recording, table, rows, publishes);
  return { sql, insert };
}

/** The statement insertRequest picks for `rows`, without sending it. */
function pickedSql(rows: readonly PreparedTask[]): string {
  const unsent: Db = { query: async () => [], request: () => Promise.resolve([]) };
  return pick(unsent, rows, true).sql;
}

function withIndexIds(rows: readonly InsertedTask[], prepared: readonly PreparedTask[]) {
  const index = new Map(prepared.map((row, i) => [row.id, i]));
  return rows.map((row) => ({ ...row, id: row.id === null ? null : index.get(row.id) }));
}

/**
 * Inserts the same inputs twice in one transaction (so now() is the same): once through the general statement, once
 * through the statement insertStatement picks. Returns both results and both sets of stored rows.
 */
async function insertBoth(inputs: readonly Input[], publishes: boolean) {
  const general = prepare(inputs);
  const picked = prepare(inputs);
  let statement = { sql: "" };
  const [generalRows, pickedRows] = await prisma.$transaction(async (tx) => {
    const generalRows = await tx.$queryRawUnsafe<InsertedTask[]>(insertTasksSql(table), insertTasksParam(general), publishes);
    const chosen = pick(prismaDb(tx), picked, publishes);
    statement = chosen;
    return [generalRows, await chosen.insert.read(await chosen.insert.request)];
  });
  return {
    statement,
    general: { results: withIndexIds(generalRows, general), stored: await stored(general) },
    picked: { results: withIndexIds(pickedRows, picked), stored: await stored(picked) },
  };
}

const soon = (ms: number) => new Date(Date.now() + ms);

describe("a batch without keys", () => {
  const inputs: Input[] = [
    { name: "send-report", payload: { reportId: "a" } },
    { name: "resize-image", payload: { url: "https://example.com/a.png", width: 3 } },
    { name: "send-report", payload: { reportId: "b" }, options: { priority: 7, maxAttempts: 9, queue: "other" } },
    { name: "send-report", payload: { reportId: "c \" \\ é \u2028" }, options: { priority: -2 } },
    { name: "resize-image", payload: { url: "https://example.com/b.png", width: 4 }, options: { queue: "default" } },
  ];

  for (const publishes of [true, false]) {
    it(`takes the keyless statement and matches the general one (publishes: ${publishes})`, async () => {
      const { statement, general, picked } = await insertBoth(inputs, publishes);
      expect(statement.sql).toBe(insertKeylessTasksSql(table));
      expect(picked.results).toEqual(general.results);
      expect(picked.stored).toEqual(general.stored);
      expect(picked.results.map((row) => [row.i, row.id, row.created, row.due, row.status])).toEqual(
        inputs.map((_, i) => [i, i, true, true, "pending"]),
      );
      expect(picked.stored.every((row) => (row.published_at !== null) === publishes)).toBe(true);
    });
  }

  it("matches the general one for delayed tasks, runAt ahead and runAt just past", async () => {
    const delayed: Input[] = [
      { name: "send-report", payload: { reportId: "now" } },
      { name: "send-report", payload: { reportId: "in 1.5 s" }, options: { delayMs: 1500 } },
      { name: "send-report", payload: { reportId: "delay 0" }, options: { delayMs: 0 } },
      { name: "send-report", payload: { reportId: "in an hour" }, options: { runAt: soon(3_600_000) } },
      { name: "resize-image", payload: { url: "https://example.com/c.png", width: 1 }, options: { runAt: soon(-30_000) } },
      { name: "send-report", payload: { reportId: "fraction" }, options: { delayMs: 2.6 } },
    ];
    const { statement, general, picked } = await insertBoth(delayed, true);
    expect(statement.sql).toBe(insertKeylessTasksSql(table));
    expect(picked.results).toEqual(general.results);
    expect(picked.stored).toEqual(general.stored);
    expect(picked.results.map((row) => row.due)).toEqual([true, false, true, false, true, false]);
    expect(picked.stored.map((row) => row.published_at !== null)).toEqual([true, false, true, false, true, false]);
  });

  it("matches the general one for a large batch", async () => {
    const many: Input[] = Array.from({ length: 3000 }, (_, n) =>
      n % 3 === 0
        ? { name: "resize-image", payload: { url: `https://example.com/${n}.png`, width: n + 1 } }
        : { name: "send-report", payload: { reportId: `r${n}` }, options: n % 7 === 0 ? { delayMs: n } : undefined },
    );
    const { general, picked } = await insertBoth(many, true);
    expect(picked.results).toEqual(general.results);
    expect(picked.stored).toEqual(general.stored);
  });
});

describe("a single task without a key", () => {
  const singles: Array<[string, Input]> = [
    ["due now", { name: "send-report", payload: { reportId: "one" } }],
    ["with options", { name: "resize-image", payload: { url: "https://example.com/o.png", width: 2 }, options: { priority: 3, maxAttempts: 1 } }],
    ["delayed", { name: "send-report", payload: { reportId: "later" }, options: { delayMs: 60_000 } }],
    ["runAt ahead", { name: "send-report", payload: { reportId: "at" }, options: { runAt: soon(120_000) } }],
    ["runAt just past", { name: "send-report", payload: { reportId: "past" }, options: { runAt: soon(-5_000) } }],
  ];

  for (const [title, input] of singles) {
    for (const publishes of [true, false]) {
      it(`takes the one-task statement and matches the general one: ${title} (publishes: ${publishes})`, async () => {
        const { statement, general, picked } = await insertBoth([input], publishes);
        expect(statement.sql).toBe(insertOneKeylessTaskSql(table));
        expect(picked.results).toEqual(general.results);
        expect(picked.stored).toEqual(general.stored);
      });
    }
  }
});

describe("a payload of JSON null", () => {
  it("is stored as JSON null by every statement, as the one-task statement stores it", async () => {
    const nulls: Input[] = [
      { name: "note", payload: null },
      { name: "note", payload: { inner: null } },
      { name: "note", payload: null, options: { delayMs: 1000 } },
    ];
    const batch = await insertBoth(nulls, true);
    const single = await insertBoth(nulls.slice(0, 1), true);
    expect(batch.picked.stored).toEqual(batch.general.stored);
    expect(single.picked.stored).toEqual(single.general.stored);
    expect([...batch.picked.stored, ...single.picked.stored].map((row) => row.payload)).toEqual([null, { inner: null }, null, null]);
    const keyed = await extended.task.enqueue("note", null, { key: `null:${crypto.randomUUID()}` });
    const { rows } = await sql.query(`SELECT payload, jsonb_typeof(payload) AS type FROM tasks WHERE id = $1`, [keyed.id]);
    expect(rows).toEqual([{ payload: null, type: "null" }]);
  });
});

describe("a batch with keys", () => {
  it("takes the general statement when any task has a key, and an empty batch too", () => {
    const mixed = prepare([
      { name: "send-report", payload: { reportId: "x" } },
      { name: "send-report", payload: { reportId: "y" }, options: { key: "k" } },
    ]);
    expect(pickedSql(mixed)).toBe(insertTasksSql(table));
    expect(pickedSql(mixed.slice(1))).toBe(insertTasksSql(table));
    expect(pickedSql([])).toBe(insertTasksSql(table));
  });

  it("dedupes keys in the batch and in the table, one result per input in input order", async () => {
    const key = `mixed:${crypto.randomUUID()}`;
    const existing = await extended.task.enqueue("send-report", { reportId: "old" }, { key: `${key}:old` });
    const results = await extended.$transaction(async (tx) =>
      tx.task.enqueueMany([
        { name: "send-report", payload: { reportId: "1" } },
        { name: "send-report", payload: { reportId: "2" }, options: { key: `${key}:old` } },
        { name: "send-report", payload: { reportId: "3" }, options: { key: `${key}:twin` } },
        { name: "resize-image", payload: { url: "https://example.com/m.png", width: 9 }, options: { delayMs: 60_000 } },
        { name: "send-report", payload: { reportId: "5" }, options: { key: `${key}:twin` } },
      ]),
    );
    expect(results.map((task) => task.created)).toEqual([true, false, true, true, false]);
    expect(existing.created).toBe(true);
    expect(results[1]).toEqual({ ...existing, created: false });
    expect(results[4]).toEqual({ ...results[2], created: false });
    expect(results[3]!.runAt.getTime()).toBeGreaterThan(results[0]!.runAt.getTime() + 59_000);
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1::uuid[])`, [results.map((t) => t.id)]);
    expect(rows[0].n).toBe(4);
  });
});

describe("the existing-key lookup", () => {
  it("probes the key index instead of scanning the table, however many rows the table holds", async () => {
    await extended.task.enqueueMany(Array.from({ length: 3000 }, (_, n) => ({ name: "send-report" as const, payload: { reportId: `s${n}` } })));
    await sql.query("ANALYZE tasks");
    const [row] = prepare([{ name: "send-report", payload: { reportId: "probe" }, options: { key: `probe:${crypto.randomUUID()}` } }]);
    const client = await sql.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT TEXT) ${insertTasksSql(table)}`, [insertTasksParam([row!]), true]);
      await client.query("ROLLBACK");
      const plan = rows.map((r) => r["QUERY PLAN"] as string).join("\n");
      expect(plan).not.toMatch(/Seq Scan on tasks/);
      expect(plan).toMatch(/Index Scan using tasks_key_key/);
    } finally {
      client.release();
    }
  });
});

describe("the key index", () => {
  it("leaves tasks without a key out of the unique key index", async () => {
    const { rows } = await sql.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'tasks_key_key'`);
    expect(rows[0].indexdef).toMatch(/UNIQUE INDEX tasks_key_key ON public\.tasks USING btree \(key\) WHERE \(key IS NOT NULL\)/);
  });

  it("still dedupes when a later migration made the index a plain unique index again", async () => {
    const other = await setupDatabase();
    const pool = new pg.Pool({ connectionString: other.url, max: 1 });
    const client = withoutBroker(other.url);
    try {
      // What a Prisma migration that does not know partial indexes may write from `key String? @unique`.
      await pool.query(`DROP INDEX tasks_key_key; CREATE UNIQUE INDEX tasks_key_key ON tasks (key)`);
      const key = `plain:${crypto.randomUUID()}`;
      const first = await client.task.enqueue("send-report", { reportId: "a" }, { key });
      const second = await client.task.enqueue("send-report", { reportId: "b" }, { key });
      const keyless = await client.task.enqueueMany([1, 2].map((n) => ({ name: "send-report" as const, payload: { reportId: `k${n}` } })));
      expect([first.created, second.created, second.id]).toEqual([true, false, first.id]);
      expect(keyless.map((task) => task.created)).toEqual([true, true]);
      expect((await pool.query(`SELECT count(*)::int AS n FROM tasks`)).rows[0].n).toBe(3);
    } finally {
      await client.$taskQueue.close();
      await client.$disconnect();
      await pool.end();
      await other.drop();
    }
  });
});
