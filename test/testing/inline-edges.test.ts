// inlineQueue() at its edges: on SQLite its claims and outcomes use a connection of their own (Prisma's adapter runs
// everything on one connection, where an outcome could land in a transaction the app rolls back), a handler that
// outlives its timeout, a queue with its own database URL, and every bad input refused with the fix.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, silentLogger, taskQueue, TaskQueueConfigError, TaskTimeoutError } from "../../src/index.js";
import { inlineQueue, InlineTaskError } from "../../src/testing/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";
import { Rollback, type AppClient } from "./app.js";

let releaseGate: () => void = () => {};
let gateReached = false;

const edgeTasks = defineTasks({
  gated: {
    payload: z.object({}),
    handler: async () => {
      gateReached = true;
      await new Promise<void>((resolve) => (releaseGate = resolve));
      return "done";
    },
  },
  sleepy: {
    payload: z.object({}),
    timeoutMs: 100,
    handler: (_payload, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", resolve)),
  },
  quick: { payload: z.object({ n: z.number() }), handler: async ({ n }) => n * 2 },
});

function extend(client: { $extends(extension: unknown): unknown }): AppClient {
  return client.$extends(taskQueue({ tasks: edgeTasks, logger: silentLogger })) as AppClient;
}

describe("on SQLite", () => {
  let db: SqliteTestDatabase;
  let prisma: AppClient;
  beforeAll(async () => {
    db = await createSqliteDatabase();
    prisma = extend(sqlitePrisma(db.url));
  });
  afterAll(async () => {
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("writes an outcome on its own connection: a transaction the app rolls back meanwhile does not take it along", async () => {
    const queue = await inlineQueue(prisma);
    try {
      gateReached = false;
      const task = await prisma.task.enqueue("gated", {});
      await waitUntil(() => gateReached, "the handler to start");
      await expect(
        prisma.$transaction(async (tx) => {
          await tx.report.create({ data: { id: crypto.randomUUID() } });
          releaseGate(); // the handler returns now; its completion is written while this transaction holds the file
          await new Promise((resolve) => setTimeout(resolve, 300));
          throw new Rollback("the app rolls back");
        }),
      ).rejects.toBeInstanceOf(Rollback);
      const runs = await queue.drain();
      expect(runs).toMatchObject([{ id: task.id, status: "succeeded", result: "done" }]);
      const store = openStore(db.url);
      expect(await store.findTask(task.id)).toMatchObject({ status: "succeeded", attempts: 1 });
      await store.close();
    } finally {
      releaseGate();
      await queue.close();
    }
  });

  it("fails a handler that outlives its timeoutMs with TaskTimeoutError", async () => {
    const queue = await inlineQueue(prisma);
    try {
      const task = await prisma.task.enqueue("sleepy", {});
      const error = (await queue.drain().catch((caught: unknown) => caught)) as InlineTaskError;
      expect(error).toBeInstanceOf(InlineTaskError);
      expect(error.message).toContain(`task "sleepy" (id ${task.id}, attempt 1) threw TaskTimeoutError:`);
      expect(error.failures[0]!.error).toBeInstanceOf(TaskTimeoutError);
      expect(error.failures[0]!.status).toBe("pending");
    } finally {
      await queue.close();
    }
  });

  it("refuses what cannot work, naming the fix", async () => {
    await expect(inlineQueue({})).rejects.toThrow(
      'Invalid option "prisma": inlineQueue() takes the Prisma client extended with taskQueue() (the one your app enqueues through',
    );
    await expect(inlineQueue(prisma, { taskz: {} } as object)).rejects.toThrow(
      'Invalid option "taskz": unknown option of inlineQueue(). Use one of: tasks, databaseUrl, logger, leaseMs.',
    );
    await expect(inlineQueue(prisma, { tasks: defineTasks({ quiet: { payload: z.object({}) } }) })).rejects.toThrow(
      'Invalid option "tasks": none of the tasks ("quiet") has a handler',
    );
    await expect(inlineQueue(prisma, { leaseMs: 5 })).rejects.toThrow('Invalid option "leaseMs": must be an integer from 100 to 2147483647, got 5.');
    await expect(inlineQueue(prisma, { databaseUrl: "mongodb://x" })).rejects.toThrow(TaskQueueConfigError);
    const queue = await inlineQueue(prisma);
    await expect(queue.drain({ sheduled: true } as object)).rejects.toThrow('Invalid option "drain() options": expected { scheduled?: boolean }, got {"sheduled":true}.');
    await queue.close();
    await expect(queue.drain()).rejects.toThrow('Invalid option "drain()": this inline queue is closed; create a new one with inlineQueue().');
  });

  it("refuses a database without the task table, saying to apply the migration", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptq-empty-"));
    const path = join(dir, "empty.db");
    new Database(path).close();
    const empty = extend(sqlitePrisma(`file:${path}`));
    try {
      await expect(inlineQueue(empty)).rejects.toThrow(/^Invalid option "prisma": the inline queue cannot use the database of the client: .*apply the migration/);
    } finally {
      await empty.$taskQueue.close();
      await empty.$disconnect();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("with its own databaseUrl on PostgreSQL", () => {
  let db: TestDatabase;
  let prisma: AppClient;
  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = extend(testPrisma(db.url));
  });
  afterAll(async () => {
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("claims and completes on a pool of its own, which close() ends", async () => {
    const queue = await inlineQueue(prisma, { databaseUrl: db.url });
    try {
      await prisma.task.enqueue("quick", { n: 21 });
      expect(await queue.drain()).toMatchObject([{ name: "quick", status: "succeeded", result: 42 }]);
    } finally {
      await queue.close();
    }
  });
});
