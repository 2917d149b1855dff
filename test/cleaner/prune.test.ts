// The cleaner's third step: finished tasks (succeeded, dead, cancelled) older than the retention window are deleted
// in bounded batches; pending, running and recent tasks stay.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import type { Logger } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { insertRows } from "./rows.js";

let db: TestDatabase;
let sql: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
});

afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

function recordingLogger(events: Array<{ message: string; fields?: Record<string, unknown> }>): Logger {
  const record = (message: string, fields?: Record<string, unknown>) => void events.push({ message, fields });
  return { debug: record, info: record, warn: record, error: record };
}

async function remaining(): Promise<number> {
  return (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks")).rows[0]!.n;
}

describe("pruning", () => {
  it("deletes finished tasks past retention in batches of batchSize and keeps everything else", async () => {
    const old = await insertRows(sql, [
      ...Array.from({ length: 20 }, () => ({ status: "succeeded" as const, finishedAgoMs: 7_200_000, createdAgoMs: 7_300_000 })),
      ...Array.from({ length: 3 }, () => ({ status: "dead" as const, finishedAgoMs: 7_200_000 })),
      ...Array.from({ length: 2 }, () => ({ status: "cancelled" as const, finishedAgoMs: 7_200_000 })),
    ]);
    const kept = await insertRows(sql, [
      { status: "succeeded", finishedAgoMs: 60_000 },
      { status: "dead", finishedAgoMs: 60_000 },
      { status: "pending", createdAgoMs: 7_300_000, publishedAgoMs: 1000 },
      { status: "running", leaseExpiredAgoMs: -60_000, createdAgoMs: 7_300_000 },
    ]);
    const events: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const cleaner = createCleaner({
      tasks: cleanerTasks,
      databaseUrl: db.url,
      retentionMs: 3_600_000,
      batchSize: 10,
      logger: recordingLogger(events),
    });
    try {
      const pass = await cleaner.runOnce();
      expect(pass).toMatchObject({ pruned: 25, errors: [] });
      const batches = events.filter((event) => event.message === "pruned finished tasks").map((event) => event.fields?.count);
      expect(batches).toEqual([10, 10, 5]);
      const deleted = events.flatMap((event) => (event.message === "pruned finished tasks" ? (event.fields?.taskIds as string[]) : []));
      expect(new Set(deleted)).toEqual(new Set(old));
      const left = await sql.query<{ id: string }>("SELECT id::text AS id FROM tasks");
      expect(new Set(left.rows.map((row) => row.id))).toEqual(new Set(kept));
    } finally {
      await cleaner.stop();
    }
  });

  it("with retentionMs 0 deletes finished tasks at the next sweep", async () => {
    await sql.query("DELETE FROM tasks");
    await insertRows(sql, [{ status: "succeeded", finishedAgoMs: 0 }, { status: "pending" }]);
    const cleaner = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, retentionMs: 0, logger: recordingLogger([]) });
    try {
      await cleaner.runOnce();
      expect(await remaining()).toBe(1);
    } finally {
      await cleaner.stop();
    }
  });
});
