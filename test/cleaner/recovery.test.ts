// The cleaner's second step: a running task whose lease expired is recovered by its task's policy: retry (default,
// and for unknown names), dead with a dead-letter notification, or a function that may enqueue a compensating task.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { inject } from "vitest";
import { createCleaner, type Cleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger, taskQueue } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { DeadLetters } from "./dead-letters.js";
import { insertRows, rowOf } from "./rows.js";

let db: TestDatabase;
let sql: pg.Pool;
let counter: WakeupCounter;
let letters: DeadLetters;
let prisma: ReturnType<typeof extend>;
let cleaner: Cleaner;
const events: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
const recordingLogger = {
  debug: (message: string, fields?: Record<string, unknown>) => void events.push({ level: "debug", message, fields }),
  info: (message: string, fields?: Record<string, unknown>) => void events.push({ level: "info", message, fields }),
  warn: (message: string, fields?: Record<string, unknown>) => void events.push({ level: "warn", message, fields }),
  error: (message: string, fields?: Record<string, unknown>) => void events.push({ level: "error", message, fields }),
};

function extend(url: string, prefix: string) {
  return testPrisma(url).$extends(taskQueue({ tasks: cleanerTasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
  const prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default"]);
  letters = await DeadLetters.start(prefix);
  prisma = extend(db.url, prefix);
  cleaner = createCleaner({
    tasks: cleanerTasks,
    databaseUrl: db.url,
    amqpUrl: inject("amqpUrl"),
    amqpPrefix: prefix,
    prisma,
    logger: recordingLogger,
  });
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

describe("retry policy (the default)", () => {
  it("puts a task back to pending, due now, attempts kept, and wakes it", async () => {
    const [id] = await insertRows(sql, [{ status: "running", attempts: 2, createdAgoMs: 60_000 }]);
    const pass = await cleaner.runOnce();
    expect(pass).toMatchObject({ retried: 1, dead: 0, errors: [] });
    const row = await rowOf(sql, id!);
    expect(row).toMatchObject({ status: "pending", attempts: 2, lease_owner: null, lease_expires_at: null, finished_at: null });
    expect(row?.last_error).toBe("lease expired: worker vanished-worker:1 stopped renewing it during attempt 2 of 5");
    expect(row?.run_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    await counter.waitFor(() => counter.counts.get(id!) === 1, "the recovered task's wake-up");
    expect(events).toContainEqual({
      level: "info",
      message: "lease expired; task back to pending",
      fields: { taskId: id, taskName: "send-report", queue: "default", attempts: 2, maxAttempts: 5, leaseOwner: "vanished-worker:1" },
    });
  });

  it("sends a task that used its last attempt to dead, with a dead-letter notification", async () => {
    const [id] = await insertRows(sql, [{ status: "running", attempts: 3, maxAttempts: 3 }]);
    expect(await cleaner.runOnce()).toMatchObject({ retried: 0, dead: 1 });
    expect(await rowOf(sql, id!)).toMatchObject({ status: "dead", attempts: 3 });
    await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
    expect(letters.for(id!)[0]).toMatchObject({ name: "send-report", queue: "default", attempts: 3, reason: "lease-expired" });
    expect(events.find((event) => event.message === "lease expired; task dead" && event.fields?.taskId === id)?.level).toBe("warn");
  });

  it("retries a task whose name this registry does not define", async () => {
    const [id] = await insertRows(sql, [{ name: "from-a-newer-release", status: "running" }]);
    await cleaner.runOnce();
    expect(await rowOf(sql, id!)).toMatchObject({ status: "pending" });
  });

  it("leaves a running task whose lease is still valid alone", async () => {
    const [id] = await insertRows(sql, [{ status: "running", leaseExpiredAgoMs: -30_000 }]);
    await cleaner.runOnce();
    expect(await rowOf(sql, id!)).toMatchObject({ status: "running", lease_owner: "vanished-worker:1" });
  });
});

describe('"dead" policy', () => {
  it("abandons the task at once and notifies the dead-letter exchange", async () => {
    const [id] = await insertRows(sql, [{ name: "charge-card", payload: { orderId: "o1" }, status: "running", attempts: 1 }]);
    expect(await cleaner.runOnce()).toMatchObject({ dead: 1 });
    const row = await rowOf(sql, id!);
    expect(row).toMatchObject({ status: "dead", attempts: 1, lease_owner: null });
    expect(row?.finished_at).toBeInstanceOf(Date);
    expect(row?.last_error).toMatch(/abandoned by the recovery policy/);
    await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
    expect(letters.for(id!)[0]).toMatchObject({ name: "charge-card", reason: "lease-expired" });
  });
});

describe("function policy", () => {
  it("lets the function enqueue a compensating task and abandon the original", async () => {
    const [id] = await insertRows(sql, [{ name: "book-trip", payload: { tripId: "t-7" }, status: "running" }]);
    expect(await cleaner.runOnce()).toMatchObject({ dead: 1, errors: [] });
    expect(await rowOf(sql, id!)).toMatchObject({ status: "dead" });
    const compensation = await sql.query("SELECT name, payload, status FROM tasks WHERE key = $1", [`cancel-trip:${id}`]);
    expect(compensation.rows).toEqual([{ name: "cancel-trip", payload: { tripId: "t-7" }, status: "pending" }]);
    await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
  });

  it('applies a "retry" answer, and a "dead" answer', async () => {
    const [retry, dead] = await insertRows(sql, [
      { name: "retry-if-asked", payload: { answer: "retry" }, status: "running" },
      { name: "retry-if-asked", payload: { answer: "dead" }, status: "running" },
    ]);
    expect(await cleaner.runOnce()).toMatchObject({ retried: 1, dead: 1 });
    expect(await rowOf(sql, retry!)).toMatchObject({ status: "pending" });
    expect(await rowOf(sql, dead!)).toMatchObject({ status: "dead" });
  });

  it("sends the task to dead with reason recovery-failed when the function throws", async () => {
    const [id] = await insertRows(sql, [{ name: "broken-recovery", payload: {}, status: "running" }]);
    expect(await cleaner.runOnce()).toMatchObject({ dead: 1, errors: [] });
    const row = await rowOf(sql, id!);
    expect(row?.status).toBe("dead");
    expect(row?.last_error).toMatch(/the recovery function threw: ledger service unreachable$/);
    await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
    expect(letters.for(id!)[0]).toMatchObject({ reason: "recovery-failed" });
    expect(events).toContainEqual({
      level: "error",
      message: "recovery function failed; the task goes to dead",
      fields: { taskId: id, taskName: "broken-recovery", error: "the recovery function threw: ledger service unreachable" },
    });
  });
});

describe("many expired leases", () => {
  it("recovers them in batches of batchSize", async () => {
    const batched = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, batchSize: 4, lockKey: 5151, logger: silentLogger });
    try {
      const ids = await insertRows(sql, Array.from({ length: 11 }, () => ({ status: "running" as const })));
      // No amqpUrl on PostgreSQL: the recovered tasks, due now, are woken through NOTIFY.
      expect(await batched.runOnce()).toMatchObject({ retried: 11, published: 11 });
      const rows = await sql.query("SELECT status FROM tasks WHERE id = ANY($1::uuid[])", [ids]);
      expect(rows.rows.every((row) => row.status === "pending")).toBe(true);
    } finally {
      await batched.stop();
    }
  });
});
