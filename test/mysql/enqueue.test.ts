// Enqueue through the MySQL extension: wake-ups after COMMIT only and the published mark, UTC times whatever the
// session's zone, keys equal but for trailing spaces, and batch $transaction([...]) settled after the commit.

import type { Pool } from "mariadb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, silentLogger, taskQueue, type Store } from "../../src/index.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { createMysqlTestDatabase, mysqlDatabaseUrl, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { waitUntil } from "../support/wait.js";
import { mysqlRowOf } from "./rows.js";

const tasks = defineTasks({ note: { payload: z.object({ n: z.number() }), handler: async () => {} } });

let database: MysqlTestDatabase;
let sql: Pool;
let store: Store;
const clients: Array<{ $taskQueue: { close(): Promise<void> }; $disconnect(): Promise<void> }> = [];

function client(url = database.url, broker?: { amqpUrl: string; amqpPrefix: string }) {
  const extended = testMysqlPrisma(url).$extends(taskQueue({ tasks, logger: silentLogger, ...broker }));
  clients.push(extended);
  return extended;
}

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  sql = mysqlTestPool(database);
  store = openStore(database.url, { max: 2 });
});

afterAll(async () => {
  for (const c of clients) {
    await c.$taskQueue.close();
    await c.$disconnect();
  }
  await store?.close();
  await sql?.end();
  await database?.drop();
});

describe("wake-ups", () => {
  it("leave after COMMIT, once, never after a rollback; the insert marks them published only when it publishes", async () => {
    const prefix = uniquePrefix();
    const counter = await WakeupCounter.start(prefix);
    try {
      const app = client(database.url, { amqpUrl: inject("amqpUrl"), amqpPrefix: prefix });
      const [committed, delayed] = await app.$transaction(async (tx) => {
        const task = await tx.task.enqueue("note", { n: 1 });
        const later = await tx.task.enqueue("note", { n: 2 }, { delayMs: 60_000 });
        expect(counter.counts.get(task.id)).toBeUndefined(); // not before COMMIT
        return [task, later];
      });
      await counter.waitFor(() => counter.counts.get(committed.id) === 1, "the committed task's wake-up");
      let rolledBack: string | undefined;
      await expect(
        app.$transaction(async (tx) => {
          rolledBack = (await tx.task.enqueue("note", { n: 3 })).id;
          throw new Error("the business write failed");
        }),
      ).rejects.toThrow("the business write failed");
      expect((await mysqlRowOf(sql, committed.id))?.published_at).toBeInstanceOf(Date);
      expect((await mysqlRowOf(sql, delayed.id))?.published_at).toBeNull(); // the cleaner's, when it is due
      expect(await mysqlRowOf(sql, rolledBack!)).toBeUndefined();
      const quiet = await client().task.enqueue("note", { n: 4 }); // no broker: nothing marked, the cleaner publishes
      expect((await mysqlRowOf(sql, quiet.id))?.published_at).toBeNull();
      // Wake-ups of one client leave in order: once a later one arrived, any duplicate or stray one would have too.
      const marker = await app.task.enqueue("note", { n: 5 });
      await counter.waitFor(() => counter.counts.get(marker.id) === 1, "a later task's wake-up");
      expect(counter.counts.get(committed.id)).toBe(1);
      expect(counter.counts.has(delayed.id) || counter.counts.has(rolledBack!)).toBe(false);
    } finally {
      await counter.close();
    }
  });
});

describe("times", () => {
  it("are UTC in the table whatever the session's time zone, and runAt is the database's", async () => {
    const plus = client(mysqlDatabaseUrl(database.serverUrl, database.name, { time_zone: "+09:00" }));
    const minus = openStore(mysqlDatabaseUrl(database.serverUrl, database.name, { time_zone: "-07:00" }), { max: 1 });
    try {
      const before = Date.now();
      const now = await plus.task.enqueue("note", { n: 1 });
      const at = new Date(Date.now() + 1500);
      const later = await plus.task.enqueue("note", { n: 2 }, { runAt: at });
      const skew = await sql.query<Array<{ us: number }>>("SELECT TIMESTAMPDIFF(MICROSECOND, run_at, UTC_TIMESTAMP(6)) AS us FROM tasks WHERE id = ?", [now.id]);
      expect(Math.abs(skew[0]!.us)).toBeLessThan(5_000_000); // not 9 hours off
      expect(Math.abs(now.runAt.getTime() - before)).toBeLessThan(5000);
      expect(later.runAt.getTime()).toBe(at.getTime());
      expect((await mysqlRowOf(sql, later.id))?.run_at.getTime()).toBe(at.getTime());
      const filter = { owner: "tz", leaseMs: 30_000, names: ["note"], queues: ["default"] };
      const early = await minus.claimByIds([later.id], filter);
      expect(early[0]).toMatchObject({ claimed: null, reason: "not-due" });
      await waitUntil(async () => (await minus.now()).getTime() > at.getTime(), "the database clock to pass run_at");
      const due = await minus.claimByIds([later.id], filter);
      expect(due[0]?.claimed?.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 25_000);
    } finally {
      await minus.close();
    }
  });
});

describe("dedupe keys", () => {
  it("keys that differ only in trailing spaces are one key, reported under the key asked for", async () => {
    const app = client();
    const a = await app.task.enqueue("note", { n: 1 }, { key: "padded" });
    const b = await app.task.enqueue("note", { n: 2 }, { key: "padded  " });
    const c = await app.task.enqueue("note", { n: 3 }, { key: "Padded" });
    expect(b).toMatchObject({ id: a.id, created: false, key: "padded  " });
    expect(c).toMatchObject({ created: true, key: "Padded" }); // case matters (binary collation)
  });
});

describe("batches", () => {
  it("a batch $transaction([...]) settles its enqueues after the commit, and a failed one leaves nothing", async () => {
    const app = client();
    const [task, report] = await app.$transaction([app.task.enqueue("note", { n: 7 }, { key: "in-batch" }), app.report.create({ data: { status: "b" } })]);
    expect(task).toMatchObject({ created: true, key: "in-batch", status: "pending" });
    expect(report).toMatchObject({ status: "b" });
    const again = await app.$transaction([app.task.enqueue("note", { n: 8 }, { key: "in-batch" })]);
    expect(again[0]).toMatchObject({ id: task.id, created: false });
    await expect(
      app.$transaction([app.task.enqueue("note", { n: 9 }, { key: "rolled-back" }), app.report.create({ data: { id: report.id, status: "dup" } })]),
    ).rejects.toThrow();
    expect(await sql.query("SELECT id FROM tasks WHERE `key` = 'rolled-back'")).toHaveLength(0);
  });
});
