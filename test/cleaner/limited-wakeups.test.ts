// The cleaner's re-sent wake-ups and the queue controls: a paused queue's backlog, or a limited queue's beyond what its
// limits let start now, is not woken again (each such wake-up would only cost a worker a refused claim, every
// republishAfterMs / 4, for as long as the backlog lasts); what may start is.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { inject } from "vitest";
import { createCleaner, type Cleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { insertRows } from "./rows.js";

const QUEUES = ["default", "limited", "rated", "paused"];
/** Rows whose last wake-up is a minute old: stale for a cleaner whose republishAfterMs is 1 s. */
const STALE = { createdAgoMs: 120_000, publishedAgoMs: 60_000 };

let db: TestDatabase;
let sql: pg.Pool;
let prefix: string;
let counter: WakeupCounter;
let lockKey = 5100;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {});
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, QUEUES);
});

afterAll(async () => {
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

beforeEach(async () => {
  await sql.query("DELETE FROM tasks");
  await sql.query("DELETE FROM tasks_queue_starts");
  await sql.query("DELETE FROM tasks_queues");
  counter.counts.clear();
});

/** A cleaner of its own (its first sweep searches for stale wake-ups at once), stopped after `use`. */
async function withCleaner<T>(use: (cleaner: Cleaner) => Promise<T>): Promise<T> {
  const cleaner = createCleaner({
    tasks: cleanerTasks,
    databaseUrl: db.url,
    amqpUrl: inject("amqpUrl"),
    amqpPrefix: prefix,
    republishAfterMs: 1000,
    lockKey: lockKey++,
    logger: silentLogger,
  });
  try {
    return await use(cleaner);
  } finally {
    await cleaner.stop();
  }
}

function stale(queue: string, count: number) {
  return Array.from({ length: count }, () => ({ ...STALE, queue }));
}

const woken = (ids: readonly string[]) => ids.filter((id) => counter.counts.has(id)).length;

describe("re-sent wake-ups of controlled queues", () => {
  it("wakes none of a queue at its concurrency limit, and as many as its free slots once one frees", async () => {
    await sql.query(`INSERT INTO tasks_queues (queue, concurrency, updated_at) VALUES ('limited', 2, now())`);
    const running = await insertRows(sql, [
      { queue: "limited", status: "running", createdAgoMs: 120_000, leaseExpiredAgoMs: -600_000 },
      { queue: "limited", status: "running", createdAgoMs: 120_000, leaseExpiredAgoMs: -600_000 },
    ]);
    const backlog = await insertRows(sql, stale("limited", 40));
    const [plain] = await insertRows(sql, [STALE]);

    await withCleaner(async (cleaner) => {
      expect((await cleaner.runOnce()).published, "the unlimited queue's one stale task alone").toBe(1);
    });
    await counter.waitFor(() => counter.counts.get(plain!) === 1, "the unlimited queue's wake-up");
    await counter.settle();
    expect(woken(backlog), "2 of 2 running: nothing of the backlog may start").toBe(0);

    await sql.query(`UPDATE tasks SET status = 'succeeded', finished_at = now(), lease_owner = NULL WHERE id = $1`, [running[0]]);
    await withCleaner(async (cleaner) => {
      expect((await cleaner.runOnce()).published, "one slot free: one wake-up").toBe(1);
    });
    await counter.waitFor(() => woken(backlog) === 1, "one wake-up of the backlog");
    const [first] = (await sql.query<{ id: string }>(`SELECT id FROM tasks WHERE queue = 'limited' AND status = 'pending' ORDER BY run_at LIMIT 1`)).rows;
    expect(counter.counts.has(first!.id), "the oldest due first").toBe(true);
  });

  it("wakes at most the starts a rate limit has left in its window", async () => {
    await sql.query(`INSERT INTO tasks_queues (queue, rate_starts, rate_per_ms, updated_at) VALUES ('rated', 5, 60000, now())`);
    await sql.query(`INSERT INTO tasks_queue_starts (queue, started_at, starts) VALUES ('rated', now() - interval '1 second', 2)`);
    const backlog = await insertRows(sql, stale("rated", 30));
    await withCleaner(async (cleaner) => {
      expect((await cleaner.runOnce()).published, "5 per minute, 2 started: 3 more").toBe(3);
    });
    await counter.waitFor(() => woken(backlog) === 3, "three wake-ups");
    await counter.settle();
    expect(woken(backlog)).toBe(3);
  });

  it("wakes none of a paused queue's backlog (its resume does)", async () => {
    await sql.query(`INSERT INTO tasks_queues (queue, paused_at, updated_at) VALUES ('paused', now(), now())`);
    const backlog = await insertRows(sql, stale("paused", 20));
    await withCleaner(async (cleaner) => {
      expect((await cleaner.runOnce()).published).toBe(0);
    });
    await counter.settle();
    expect(woken(backlog)).toBe(0);
  });
});
