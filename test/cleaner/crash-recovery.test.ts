// A real crash: a worker child process is killed with SIGKILL while it runs three tasks. The cleaner leaves their
// leases alone while they hold, then recovers each by its policy once they expire: retried (and run again by a new
// worker), abandoned with a dead-letter notification, or compensated by a task the recovery function enqueues.

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
import { crashTasks } from "../fixtures/cleaner-crash-tasks.js";
import { WorkerProcess } from "../support/worker-process.js";
import { DeadLetters } from "./dead-letters.js";
import { rowOf } from "./rows.js";

let db: TestDatabase;
let sql: pg.Pool;
let prefix: string;
let counter: WakeupCounter;
let letters: DeadLetters;
let prisma: ReturnType<typeof extend>;
let cleaner: Cleaner;
const children: WorkerProcess[] = [];

function extend(url: string) {
  return testPrisma(url).$extends(taskQueue({ tasks: crashTasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, []); // declares the exchanges and the dead-letter queue
  letters = await DeadLetters.start(prefix);
  prisma = extend(db.url);
  cleaner = createCleaner({
    tasks: crashTasks,
    databaseUrl: db.url,
    amqpUrl: inject("amqpUrl"),
    amqpPrefix: prefix,
    prisma,
    intervalMs: 200,
    logger: silentLogger,
  });
});

afterAll(async () => {
  for (const child of children) await child.kill();
  await deleteWorkerQueue();
  await cleaner?.stop();
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await letters?.close();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

/** The workers declared the queue of "default"; the counter only knows the exchanges and the dead-letter queue. */
async function deleteWorkerQueue(): Promise<void> {
  const model = await amqp.connect(inject("amqpUrl"));
  const channel = await model.createChannel();
  await channel.deleteQueue(`${prefix}.q.default`);
  await model.close();
}

describe("a worker killed with SIGKILL mid-task", () => {
  it("has its tasks recovered by policy after the leases expire, and the retried one runs again", async () => {
    const env = { DATABASE_URL: db.url, AMQP_URL: inject("amqpUrl"), PREFIX: prefix, LEASE_MS: "1500" };
    const first = await WorkerProcess.start(env, "test/fixtures/cleaner-crash-worker.ts");
    children.push(first);
    await waitUntil(() => first.logged("worker started"), "the first worker to start", 30_000);
    await cleaner.start();

    const retry = await prisma.task.enqueue("crash-retry", { n: 1 });
    const dead = await prisma.task.enqueue("crash-dead", { n: 2 });
    const compensate = await prisma.task.enqueue("crash-compensate", { orderId: "o-9" });
    const ids = [retry.id, dead.id, compensate.id];
    await waitUntil(
      async () => {
        const rows = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1::uuid[]) AND status = 'running'", [ids]);
        return rows.rows[0]!.n === 3;
      },
      "the three tasks to run",
      20_000,
    );
    // Heartbeats keep the leases while the worker lives: once the database clock is past the leases first taken, and a
    // sweep has run since, nothing was recovered.
    const firstExpiry = (await sql.query<{ at: Date }>("SELECT max(lease_expires_at) AS at FROM tasks WHERE id = ANY($1::uuid[])", [ids])).rows[0]!.at;
    await waitUntil(
      async () => (await sql.query<{ past: boolean }>("SELECT now() > $1::timestamptz AS past", [firstExpiry])).rows[0]!.past,
      "the first leases to be past due",
      20_000,
    );
    await cleaner.runOnce();
    for (const id of ids) expect((await rowOf(sql, id))?.status, id).toBe("running");

    await first.kill();
    await waitUntil(async () => (await rowOf(sql, retry.id))?.status === "pending", "the retry-policy task back to pending", 20_000);
    const requeued = await rowOf(sql, retry.id);
    expect(requeued).toMatchObject({ attempts: 1, lease_owner: null });
    expect(requeued?.last_error).toMatch(/^lease expired: worker .+ stopped renewing it during attempt 1 of 5$/);

    await waitUntil(async () => (await rowOf(sql, dead.id))?.status === "dead", "the dead-policy task to be dead", 20_000);
    await waitUntil(() => letters.for(dead.id).length === 1, "its dead-letter notification", 20_000);
    expect(letters.for(dead.id)[0]).toMatchObject({ name: "crash-dead", reason: "lease-expired", attempts: 1 });

    await waitUntil(async () => (await rowOf(sql, compensate.id))?.status === "dead", "the compensated task to be dead", 20_000);
    const refund = await sql.query<{ id: string }>("SELECT id::text AS id FROM tasks WHERE key = $1", [`refund:${compensate.id}`]);
    expect(refund.rows).toHaveLength(1);

    const second = await WorkerProcess.start(env, "test/fixtures/cleaner-crash-worker.ts");
    children.push(second);
    await waitUntil(async () => (await rowOf(sql, retry.id))?.status === "succeeded", "the retried task to succeed", 30_000);
    expect(await rowOf(sql, retry.id)).toMatchObject({ attempts: 2, result: { ranOnAttempt: 2 } });
    await waitUntil(async () => (await rowOf(sql, refund.rows[0]!.id))?.status === "succeeded", "the refund to run", 30_000);
    expect((await rowOf(sql, refund.rows[0]!.id))?.result).toEqual({ refunded: "o-9" });

    second.signal("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
