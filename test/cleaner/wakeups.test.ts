// The cleaner's first step: tasks whose wake-up was lost, delayed tasks and retries get a wake-up when due (and not
// before); lost wake-ups are re-sent only where a worker listens and nothing waits.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import amqp from "amqplib";
import pg from "pg";
import { inject } from "vitest";
import { createCleaner, type Cleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger, taskQueue } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { insertRows, rowOf } from "./rows.js";

let db: TestDatabase;
let sql: pg.Pool;
let prefix: string;
let counter: WakeupCounter;
let cleaner: Cleaner;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default"]);
  cleaner = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger });
});

afterAll(async () => {
  await cleaner?.stop();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

describe("wake-ups", () => {
  it("re-publishes a task whose wake-up was lost, once, and marks it published", async () => {
    const [lost] = await insertRows(sql, [{ createdAgoMs: 10_000 }]);
    const pass = await cleaner.runOnce();
    expect(pass).toMatchObject({ leader: true, errors: [] });
    expect(pass.published).toBeGreaterThanOrEqual(1);
    await counter.waitFor(() => counter.counts.get(lost!) === 1, "the lost task's wake-up");
    expect((await rowOf(sql, lost!))?.published_at).toBeInstanceOf(Date);
    await cleaner.runOnce();
    await counter.settle();
    expect(counter.counts.get(lost!)).toBe(1);
  });

  it("leaves a task that was due at commit to after-commit publishing during the grace period", async () => {
    const [fresh] = await insertRows(sql, [{ createdAgoMs: 0 }]);
    await cleaner.runOnce();
    await counter.settle();
    expect(counter.counts.get(fresh!)).toBeUndefined();
    expect((await rowOf(sql, fresh!))?.published_at).toBeNull();
  });

  it("publishes a delayed task when it is due and not before", async () => {
    const prisma = testPrisma(db.url).$extends(taskQueue({ tasks: cleanerTasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
    try {
      const task = await prisma.task.enqueue("send-report", { reportId: "later" }, { delayMs: 1500 });
      await prisma.$taskQueue.flush();
      await cleaner.runOnce();
      await counter.settle();
      expect(counter.counts.get(task.id), "no wake-up before run_at").toBeUndefined();
      await waitUntil(
        async () => {
          await cleaner.runOnce();
          return counter.counts.get(task.id) === 1;
        },
        "the delayed task's wake-up",
        15_000,
      );
      const row = await rowOf(sql, task.id);
      expect(row?.published_at?.getTime()).toBeGreaterThanOrEqual(row!.run_at.getTime());
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }
  });

  it("wakes a retried task (run_at pushed out, published_at cleared) as soon as its new run_at is due", async () => {
    const [retry] = await insertRows(sql, [{ createdAgoMs: 60_000, runAgoMs: -800, publishedAgoMs: null, attempts: 1 }]);
    await cleaner.runOnce();
    await counter.settle();
    expect(counter.counts.get(retry!)).toBeUndefined();
    await waitUntil(
      async () => {
        await cleaner.runOnce();
        return counter.counts.get(retry!) === 1;
      },
      "the retry's wake-up",
      15_000,
    );
  });

  it("re-sends a stale wake-up to a queue with a consumer and no ready messages, never to a queue without consumers", async () => {
    const model = await amqp.connect(inject("amqpUrl"));
    const channel = await model.createChannel();
    const orphanQueue = `${prefix}.q.orphan`;
    await channel.assertQueue(orphanQueue, { durable: true });
    await channel.bindQueue(orphanQueue, prefix, "orphan");
    const fresh = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, lockKey: 4141, logger: silentLogger });
    try {
      const [stale, orphan, recent] = await insertRows(sql, [
        { createdAgoMs: 120_000, publishedAgoMs: 60_000 },
        { queue: "orphan", createdAgoMs: 120_000, publishedAgoMs: 60_000 },
        { createdAgoMs: 120_000, publishedAgoMs: 5_000 },
      ]);
      expect((await fresh.runOnce()).published).toBe(1);
      await counter.waitFor(() => counter.counts.get(stale!) === 1, "the stale task's second wake-up");
      await counter.settle();
      expect(counter.counts.get(recent!), "woken 5 s ago: not stale yet").toBeUndefined();
      expect((await channel.checkQueue(orphanQueue)).messageCount, "no consumer: nothing piles up").toBe(0);
      expect((await rowOf(sql, orphan!))?.published_at?.getTime()).toBeLessThan(Date.now() - 30_000);

      // The search runs at most every republishAfterMs / 4 (7.5 s): a sweep right after does not look again.
      const [another] = await insertRows(sql, [{ createdAgoMs: 120_000, publishedAgoMs: 60_000 }]);
      expect((await fresh.runOnce()).published).toBe(0);
      expect((await rowOf(sql, another!))?.published_at?.getTime()).toBeLessThan(Date.now() - 30_000);
    } finally {
      await fresh.stop();
      await channel.deleteQueue(orphanQueue);
      await model.close();
    }
  });

  it("publishes batches of batchSize until every due task is woken", async () => {
    const batched = createCleaner({
      tasks: cleanerTasks,
      databaseUrl: db.url,
      amqpUrl: inject("amqpUrl"),
      amqpPrefix: prefix,
      batchSize: 7,
      republishAfterMs: 3_600_000, // only the 30 never-published rows, not the stale ones of the test before
      lockKey: 4242,
      logger: silentLogger,
    });
    try {
      const ids = await insertRows(
        sql,
        Array.from({ length: 30 }, () => ({ createdAgoMs: 10_000 })),
      );
      const pass = await batched.runOnce();
      expect(pass.published).toBe(30);
      await counter.waitFor(() => ids.every((id) => counter.counts.get(id) === 1), "30 wake-ups");
    } finally {
      await batched.stop();
    }
  });
});

describe("without a reachable broker", () => {
  it("publishes nothing, reports no error, and leaves the rows for a later sweep", async () => {
    const offline = createCleaner({
      tasks: cleanerTasks,
      databaseUrl: db.url,
      amqpUrl: "amqp://guest:guest@127.0.0.1:1",
      amqpPrefix: prefix,
      lockKey: 4343,
      logger: silentLogger,
    });
    try {
      const [lost] = await insertRows(sql, [{ createdAgoMs: 10_000 }]);
      const first = await offline.runOnce();
      expect(first).toMatchObject({ leader: true, published: 0, errors: [] });
      expect((await rowOf(sql, lost!))?.published_at).toBeNull();
    } finally {
      await offline.stop();
    }
  });
});
