// The cleaner's recovery on MySQL against MariaDB: expired leases back to pending (attempts kept) or dead with a
// dead-letter notification, a recovery function deciding while the cleaner holds the task's lease (and
// enqueueing a compensating task through the app's client), a function that throws, a row a worker holds left alone,
// and batches.

import type { Pool, PoolConnection } from "mariadb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createCleaner, type Cleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger, taskQueue } from "../../src/index.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { waitUntil } from "../support/wait.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { insertMysqlRows, mysqlRowOf } from "../mysql/rows.js";
import { DeadLetters } from "./dead-letters.js";

let db: MysqlTestDatabase;
let sql: Pool;
let counter: WakeupCounter;
let letters: DeadLetters;
let prisma: ReturnType<typeof extend>;
let cleaner: Cleaner;

function extend(url: string, prefix: string) {
  return testMysqlPrisma(url).$extends(taskQueue({ tasks: cleanerTasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
}

beforeAll(async () => {
  db = await createMysqlTestDatabase();
  sql = mysqlTestPool(db, 3);
  const prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default"]);
  letters = await DeadLetters.start(prefix);
  prisma = extend(db.url, prefix);
  cleaner = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, prisma, logger: silentLogger });
});

afterAll(async () => {
  await cleaner?.stop();
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await letters?.close();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

describe("policies", () => {
  it("retry: back to pending, due now, attempts kept, woken; the last attempt goes dead with a notification", async () => {
    const [again, last] = await insertMysqlRows(sql, [
      { status: "running", attempts: 2, createdAgoMs: 60_000 },
      { status: "running", attempts: 3, maxAttempts: 3 },
    ]);
    expect(await cleaner.runOnce()).toMatchObject({ retried: 1, dead: 1, errors: [] });
    const row = await mysqlRowOf(sql, again!);
    expect(row).toMatchObject({ status: "pending", attempts: 2, lease_owner: null, lease_expires_at: null, finished_at: null, published_at: expect.any(Date) });
    expect(row?.last_error).toBe("lease expired: worker vanished-worker:1 stopped renewing it during attempt 2 of 5");
    await counter.waitFor(() => counter.counts.get(again!) === 1, "the recovered task's wake-up");
    expect(await mysqlRowOf(sql, last!)).toMatchObject({ status: "dead", attempts: 3, finished_at: expect.any(Date) });
    await waitUntil(() => letters.for(last!).length === 1, "the dead-letter notification");
  });

  it('"dead": abandoned at once', async () => {
    const [id] = await insertMysqlRows(sql, [{ name: "charge-card", payload: { orderId: "o1" }, status: "running", attempts: 1 }]);
    expect(await cleaner.runOnce()).toMatchObject({ dead: 1 });
    const row = await mysqlRowOf(sql, id!);
    expect(row).toMatchObject({ status: "dead", attempts: 1, lease_owner: null });
    expect(row?.last_error).toBe("lease expired: worker vanished-worker:1 stopped renewing it during attempt 1 of 5; abandoned by the recovery policy");
  });

  it("a function enqueues a compensating task and abandons the original; one that throws leaves it dead with why", async () => {
    const [trip, broken] = await insertMysqlRows(sql, [
      { name: "book-trip", payload: { tripId: "t-7" }, status: "running" },
      { name: "broken-recovery", payload: {}, status: "running" },
    ]);
    expect(await cleaner.runOnce()).toMatchObject({ dead: 2, errors: [] });
    expect(await mysqlRowOf(sql, trip!)).toMatchObject({ status: "dead" });
    const compensation = (await sql.query("SELECT name, CAST(payload AS CHAR) AS payload, status FROM tasks WHERE `key` = ?", [`cancel-trip:${trip}`])) as Array<{
      name: string;
      payload: string;
      status: string;
    }>;
    expect(compensation.map((row) => ({ ...row, payload: JSON.parse(row.payload) }))).toEqual([{ name: "cancel-trip", payload: { tripId: "t-7" }, status: "pending" }]);
    expect((await mysqlRowOf(sql, broken!))?.last_error).toMatch(/abandoned by the recovery policy; the recovery function threw: ledger service unreachable$/);
    await waitUntil(() => letters.for(broken!).length === 1, "the dead-letter notification");
    expect(letters.for(broken!)[0]).toMatchObject({ reason: "recovery-failed" });
  });

  it("leaves a task alone while another transaction holds its row, and recovers it once released", async () => {
    const [id] = await insertMysqlRows(sql, [{ name: "retry-if-asked", payload: { answer: "retry" }, status: "running" }]);
    const holder: PoolConnection = await sql.getConnection();
    try {
      await holder.beginTransaction();
      await holder.query("SELECT id FROM tasks WHERE id = ? FOR UPDATE", [id]);
      expect(await cleaner.runOnce()).toMatchObject({ retried: 0, dead: 0 });
      expect((await mysqlRowOf(sql, id!))?.status).toBe("running");
    } finally {
      await holder.rollback();
      await holder.release();
    }
    expect(await cleaner.runOnce()).toMatchObject({ retried: 1 });
    expect((await mysqlRowOf(sql, id!))?.status).toBe("pending");
  });
});

describe("many expired leases", () => {
  it("recovers them in batches of batchSize", async () => {
    const batched = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, batchSize: 4, lockKey: 5151, logger: silentLogger });
    try {
      const ids = await insertMysqlRows(sql, Array.from({ length: 11 }, () => ({ status: "running" as const })));
      expect(await batched.runOnce()).toMatchObject({ retried: 11, published: 0 });
      const rows = (await sql.query(`SELECT status FROM tasks WHERE id IN (${ids.map(() => "?").join(", ")})`, ids)) as Array<{ status: string }>;
      expect(rows.every((row) => row.status === "pending")).toBe(true);
    } finally {
      await batched.stop();
    }
  });
});
