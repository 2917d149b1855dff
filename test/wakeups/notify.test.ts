// PostgreSQL NOTIFY wake-ups end to end: they leave with the enqueuing COMMIT (a rollback sends nothing), in chunks under
// NOTIFY's 8,000-byte limit; a worker's listener comes back after pg_terminate_backend and catches up on what it missed;
// the cleaner re-sends a notification that found no listener. Workers poll once a minute here, so polling hides nothing.

import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/open-store.js";
import { taskQueue } from "../../src/task-queue.js";
import { notifyChannel } from "../../src/wakeups/notify/notify-channel.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { GATES_TABLE_SQL, workerTasks } from "../fixtures/worker-tasks.js";
import { uniquePrefix } from "../support/broker.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";

const RUNS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS task_runs (
  task_id uuid NOT NULL, worker text NOT NULL, attempt int NOT NULL, finished_at timestamptz)`;

let database: TestDatabase;
let sql: pg.Pool;
let listener: pg.Client;
const received: string[] = [];
const prefix = uniquePrefix();
const channel = notifyChannel(prefix);
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Pool({ connectionString: database.url, max: 4 });
  await sql.query(RUNS_TABLE_SQL);
  await sql.query(GATES_TABLE_SQL);
  listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  listener.on("notification", (message) => received.push(message.payload ?? ""));
  await listener.query(`LISTEN "${channel}"`);
});

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await listener?.end();
  await sql?.end();
  await database?.drop();
});

function app(appPrefix = prefix) {
  // No amqpUrl on PostgreSQL: NOTIFY is the default.
  const client = testPrisma(database.url).$extends(taskQueue({ tasks: workerTasks(sql, "app"), amqpPrefix: appPrefix, logger: silentLogger }));
  closers.push(async () => {
    await client.$taskQueue.close();
    await client.$disconnect();
  });
  return client;
}

async function startWorker(
  logger = recordingLogger(),
  options: { concurrency?: number; claimAhead?: number } = {},
): Promise<{ worker: Worker; logger: ReturnType<typeof recordingLogger> }> {
  const worker = createWorker({ tasks: workerTasks(sql, "w"), databaseUrl: database.url, amqpPrefix: prefix, logger, pollIntervalMs: 60_000, ...options });
  closers.unshift(() => worker.stop());
  await worker.start();
  return { worker, logger };
}

/**
 * Sends a marker notification from another connection and waits for it: PostgreSQL delivers notifications in commit
 * order, so true when nothing was notified since `from` before the marker (what a still-open transaction sends).
 */
async function notifiedAlone(from: number): Promise<boolean> {
  const marker = crypto.randomUUID();
  await sql.query("SELECT pg_notify($1, $2)", [channel, `default:${marker}`]);
  await waitUntil(() => notifiedIds(from).includes(marker), "the marker notification", 2000);
  const ids = notifiedIds(from);
  received.splice(from); // the marker is no task's
  return ids.length === 1;
}

/** The ids notified as due now since `from` (an index into `received`). */
function notifiedIds(from = 0): string[] {
  return received
    .slice(from)
    .filter((payload) => !payload.startsWith("@"))
    .flatMap((payload) => payload.slice(payload.indexOf(":") + 1).split(","));
}

/** The ids notified as due later since `from`, each with the run_at it said (Unix ms). */
function notifiedLater(from = 0): Map<string, number> {
  const entries = received
    .slice(from)
    .filter((payload) => payload.startsWith("@"))
    .flatMap((payload) => payload.slice(payload.indexOf(":") + 1).split(","))
    .map((entry) => entry.split("/") as [string, string]);
  return new Map(entries.map(([id, ms]) => [id, Number(ms)]));
}

async function status(id: string): Promise<string | undefined> {
  return (await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]?.status;
}

it("sends the wake-up with the COMMIT, not before, and marks the row published in the same transaction", async () => {
  const prisma = app();
  const from = received.length;
  let id = "";
  await prisma.$transaction(async (tx) => {
    id = (await tx.task.enqueue("record", { ms: 0 })).id;
    // The transaction is still open: a notification committed after the insert arrives alone.
    expect(await notifiedAlone(from)).toBe(true);
  });
  await waitUntil(() => notifiedIds(from).includes(id), "the notification after the commit", 2000);
  expect(received[from]).toBe(`default:${id}`);
  const row = (await sql.query<{ published_at: Date | null }>("SELECT published_at FROM tasks WHERE id = $1", [id])).rows[0];
  expect(row?.published_at).toBeInstanceOf(Date);
});

it("the insert statement itself notifies, inside the transaction: nothing before COMMIT, nothing after ROLLBACK", async () => {
  const store = openStore(database.url, { max: 2 });
  closers.push(() => store.close());
  const row = (id: string) => ({ id, name: "record", queue: "default", json: '{"ms":0}', priority: 0, delayMs: 0, runAt: null, maxAttempts: 3, key: null });
  const from = received.length;
  const committed = crypto.randomUUID();
  await store.transaction(async (tx) => {
    await tx.insertTasks([row(committed)], true, channel).request;
    expect(await notifiedAlone(from)).toBe(true);
  });
  await waitUntil(() => notifiedIds(from).includes(committed), "the notification of the committed insert", 2000);
  const rolledBack = crypto.randomUUID();
  await expect(
    store.transaction(async (tx) => {
      await tx.insertTasks([row(rolledBack)], true, channel).request;
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  const marker = crypto.randomUUID();
  await store.transaction(async (tx) => void (await tx.insertTasks([row(marker)], true, channel).request));
  await waitUntil(() => notifiedIds(from).includes(marker), "the marker's notification", 2000);
  expect(notifiedIds(from)).toEqual([committed, marker]);
});

it("sends nothing when the enqueuing transaction rolls back", async () => {
  const prisma = app();
  const from = received.length;
  let id = "";
  await expect(
    prisma.$transaction(async (tx) => {
      id = (await tx.task.enqueue("record", { ms: 0 })).id;
      throw new Error("business rule failed");
    }),
  ).rejects.toThrow("business rule failed");
  // A later commit's notification proves the listener is live: anything of the rolled-back one would be before it.
  const later = await prisma.task.enqueue("record", { ms: 0 });
  await waitUntil(() => notifiedIds(from).includes(later.id), "the later commit's notification", 2000);
  expect(notifiedIds(from)).toEqual([later.id]);
  expect(id).not.toBe("");
  expect(await status(id)).toBeUndefined();
});

it("splits a large batch into notifications under 8,000 bytes, each statement kind, and tells delayed tasks apart", async () => {
  const prisma = app();
  const from = received.length;
  const keyless = await prisma.task.enqueueMany(Array.from({ length: 1000 }, () => ({ name: "record" as const, payload: { ms: 0 } })));
  const keyed = await prisma.task.enqueueMany(
    Array.from({ length: 450 }, (_, i) => ({ name: "record" as const, payload: { ms: 0 }, options: { key: `k-${prefix}-${i}` } })),
  );
  const delayed = await prisma.task.enqueue("record", { ms: 0 }, { delayMs: 60_000 });
  const delayedMany = await prisma.task.enqueueMany(
    Array.from({ length: 400 }, (_, i) => ({ name: "record" as const, payload: { ms: 0 }, options: { delayMs: 30_000 + i } })),
  );
  const expected = [...keyless, ...keyed].map((task) => task.id);
  await waitUntil(() => notifiedIds(from).length >= expected.length, "every id to be notified", 5000);
  const payloads = received.slice(from);
  expect(payloads.length).toBeGreaterThanOrEqual(Math.ceil(1000 / 200) + Math.ceil(450 / 200));
  for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
  expect(new Set(notifiedIds(from))).toEqual(new Set(expected));
  expect(notifiedIds(from)).not.toContain(delayed.id);
  // Delayed tasks: a payload of their own ("@<queue>:<id>/<run_at ms>,…", which no queue name matches).
  await waitUntil(() => notifiedLater(from).size === 401, "every delayed id to be notified as due later", 5000);
  const later = notifiedLater(from);
  for (const task of [delayed, ...delayedMany]) {
    const said = later.get(task.id)! - task.runAt.getTime();
    expect(said >= 0 && said <= 1, `run_at said ${said} ms after the row's`).toBe(true);
  }
  for (const payload of received.slice(from)) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
});

it("listens again after its backend is terminated, catches up on what it missed, and wake-ups flow again", async () => {
  await sql.query("DELETE FROM tasks");
  const { worker, logger } = await startWorker();
  const prisma = app();
  const first = await prisma.task.enqueue("record", { ms: 0 });
  await waitUntil(async () => (await status(first.id)) === "succeeded", "the first task to run", 3000);
  expect(logger.find("task claimed", { taskId: first.id, via: "wakeup" })).toHaveLength(1);

  // A row nobody is told about: only a poll finds it, and the worker polls once a minute.
  const quiet = crypto.randomUUID();
  await sql.query(`INSERT INTO tasks (id, name, payload, published_at) VALUES ($1, 'record', '{"ms":0}', now())`, [quiet]);
  const listening = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'task-runner listener'`;
  const before = (await sql.query<{ pid: number }>(listening)).rows.map((row) => row.pid);
  expect(before).toHaveLength(1);
  await sql.query("SELECT pg_terminate_backend($1)", [before[0]]);
  await waitUntil(async () => (await status(quiet)) === "succeeded", "the catch-up poll after the reconnect", 5000);
  expect(logger.find("task claimed", { taskId: quiet, via: "poll" })).toHaveLength(1);
  expect(logger.find("lost the wake-up listening connection; workers poll until it is back").length).toBeGreaterThanOrEqual(1);

  const after = (await sql.query<{ pid: number }>(listening)).rows.map((row) => row.pid);
  expect(after).toHaveLength(1);
  expect(after[0]).not.toBe(before[0]);
  const second = await prisma.task.enqueue("record", { ms: 0 });
  await waitUntil(async () => (await status(second.id)) === "succeeded", "the task enqueued after the reconnect", 3000);
  expect(logger.find("task claimed", { taskId: second.id, via: "wakeup" })).toHaveLength(1);
  await worker.stop();
});

it("a worker that starts on a backlog drains it by polling as slots free, though it listens", async () => {
  await sql.query("DELETE FROM tasks");
  // 300 tasks whose notifications went out before any worker listened: gone.
  await sql.query(`INSERT INTO tasks (id, name, payload, published_at) SELECT gen_random_uuid(), 'record', '{"ms":0}', now() FROM generate_series(1, 300)`);
  const { worker } = await startWorker();
  await waitUntil(
    async () => (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE status = 'succeeded'")).rows[0]!.n === 300,
    "the backlog to drain",
    10_000,
  );
  await worker.stop();
});

it("a busy worker lets notified ids go (every listener has them) and claims them by polling once a slot frees", async () => {
  await sql.query("DELETE FROM tasks");
  const { worker, logger } = await startWorker(recordingLogger(), { concurrency: 1, claimAhead: 0 });
  const prisma = app();
  const gate = crypto.randomUUID();
  const slow = await prisma.task.enqueue("hold", { gate });
  await waitUntil(async () => (await status(slow.id)) === "running", "the holding task to start", 3000);
  const waiting = await Promise.all([1, 2, 3].map(() => prisma.task.enqueue("record", { ms: 0 })));
  await waitUntil(() => logger.find("wake-up ids left to other workers and to polling").length === 3, "the ids to be let go", 3000);
  for (const task of waiting) expect(await status(task.id)).toBe("pending");
  await sql.query("INSERT INTO task_gates (gate) VALUES ($1)", [gate]);
  for (const task of waiting) await waitUntil(async () => (await status(task.id)) === "succeeded", "the waiting tasks to run", 5000);
  for (const task of waiting) expect(logger.find("task claimed", { taskId: task.id, via: "poll" })).toHaveLength(1);
  await worker.stop();
});

it("a notification no listener heard is re-sent by the cleaner, and the task runs", async () => {
  await sql.query("DELETE FROM tasks");
  const { logger } = await startWorker();
  // An app on another prefix notifies a channel nobody listens on: the notification is lost at the commit.
  const elsewhere = app(uniquePrefix());
  const lost = await elsewhere.task.enqueue("record", { ms: 0 });
  // A task enqueued after it on the worker's own prefix is heard and runs; the lost one is still pending then.
  const heard = await app().task.enqueue("record", { ms: 0 });
  await waitUntil(async () => (await status(heard.id)) === "succeeded", "the heard task to run", 5000);
  expect(await status(lost.id)).toBe("pending");
  const cleaner = createCleaner({
    tasks: workerTasks(sql, "c"),
    databaseUrl: database.url,
    amqpPrefix: prefix,
    logger: silentLogger,
    intervalMs: 100,
    republishAfterMs: 500,
  });
  closers.unshift(() => cleaner.stop());
  await cleaner.start();
  await waitUntil(async () => (await status(lost.id)) === "succeeded", "the cleaner's re-send to wake the worker", 5000);
  expect(logger.find("task claimed", { taskId: lost.id, via: "wakeup" })).toHaveLength(1);
});
