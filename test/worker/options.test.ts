// createWorker() options: bad ones fail at once with a message naming the option and the fix; a given store is used and
// left open; `queues` limits what is claimed; start/stop are idempotent in the documented ways.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, TaskQueueConfigError, type Store } from "../../src/index.js";
import { createWorker } from "../../src/worker/create-worker.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const ran: string[] = [];
const tasks = defineTasks({
  mail: { payload: z.object({}), handler: async (_p, ctx) => void ran.push(ctx.task.id) },
  image: { payload: z.object({}), queue: "images", handler: async (_p, ctx) => void ran.push(ctx.task.id) },
  "enqueue-only": { payload: z.object({}) },
});

function configError(options: Record<string, unknown>): TaskQueueConfigError {
  try {
    createWorker({ tasks, databaseUrl: "postgresql://localhost/x", ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(TaskQueueConfigError);
    return error as TaskQueueConfigError;
  }
  throw new Error("createWorker did not throw");
}

it("rejects bad queueLimits naming the queue, the value and the fix", () => {
  expect(configError({ queueLimits: { images: { concurrency: 0 } } }).message).toBe(
    'Invalid option "queueLimits": queue "images": concurrency must be an integer from 1 to 1000000, got 0.',
  );
  expect(configError({ queueLimits: { images: { rateLimit: { starts: 10 } } } }).message).toBe(
    'Invalid option "queueLimits": queue "images": rateLimit.perMs must be an integer from 1 to 86400000, got undefined.',
  );
  expect(configError({ queueLimits: { images: { limit: 3 } } }).message).toBe(
    'Invalid option "queueLimits": queue "images": unknown option "limit"; use concurrency or rateLimit.',
  );
  expect(configError({ queueLimits: ["images"] }).message).toBe(
    'Invalid option "queueLimits": must map queue names to limits, e.g. { reports: { concurrency: 5 } }, got ["images"].',
  );
});

it("rejects bad options with a message naming the option and the fix", () => {
  expect(configError({ databaseUrl: undefined }).message).toBe(
    'Invalid option "databaseUrl": the worker needs a database: pass databaseUrl (e.g. process.env.DATABASE_URL) or store.',
  );
  expect(configError({ databaseUrl: "mongodb://127.0.0.1/app" }).message).toBe(
    'Invalid option "databaseUrl": "mongodb://127.0.0.1/app" is not a URL of a supported database. Supported: PostgreSQL (postgresql://user:password@127.0.0.1:5432/app), SQLite (file:./dev.db), MySQL (mysql://user:password@127.0.0.1:3306/app).',
  );
  expect(configError({ db: {} }).message).toBe(
    'Invalid option "db": the db option was replaced by store: pass databaseUrl, or store: openStore(url, { table }) (see CHANGELOG.md).',
  );
  expect(configError({ tasks: defineTasks({ a: { payload: z.object({}) } }) }).message).toBe(
    'Invalid option "tasks": none of the tasks ("a") has a handler, so this worker could run nothing. Add handler: async (payload, ctx) => {...} to the tasks it should run.',
  );
  expect(configError({ concurrency: 0 }).message).toBe('Invalid option "concurrency": must be an integer from 1 to 10000, got 0.');
  expect(configError({ preparedStatements: "no" }).message).toBe('Invalid option "preparedStatements": must be true or false, got "no".');
  expect(configError({ asyncCompletions: "off" }).message).toBe('Invalid option "asyncCompletions": must be true or false, got "off".');
  expect(configError({ asyncClaims: 1 }).message).toBe('Invalid option "asyncClaims": must be true or false, got 1.');
  expect(configError({ deleteOnSuccess: 0 }).message).toBe('Invalid option "deleteOnSuccess": must be true or false, got 0.');
  expect(configError({ leaseMs: 1.5 }).message).toBe('Invalid option "leaseMs": must be an integer from 100 to 2147483647, got 1.5.');
  expect(configError({ queues: ["bad queue"] }).message).toContain('Invalid option "queues": "bad queue" is not a queue name');
  expect(configError({ amqpUrl: "localhost:5672" }).message).toBe(
    'Invalid option "amqpUrl": must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got "localhost:5672".',
  );
  expect(configError({ table: "tasks; drop" }).code).toBe("TASK_QUEUE_CONFIG_INVALID");
  // defineTasks() refuses this backoff too; createWorker() checks again for a registry built without it.
  const backoff = { b: { payload: z.object({}), backoff: { factor: 0.5 }, handler: async () => {} } };
  expect(configError({ tasks: backoff }).message).toBe('Invalid option "tasks": task "b": backoff.factor must be a number ≥ 1, got 0.5.');
  const transactional = defineTasks({ t: { payload: z.object({}), transactional: true, handler: async () => {} } });
  expect(configError({ tasks: transactional }).message).toBe(
    'Invalid option "prisma": task "t" is transactional, so the worker needs your Prisma client: createWorker({ prisma: prisma.$extends(taskQueue({...})), ... }).',
  );
});

describe.each(WORKER_DIALECTS)("a worker's queues and a given store ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let store: Store;

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    store = openStore(bed.url, { max: 2 });
  });

  afterAll(async () => {
    await store?.close();
    await bed?.close();
  });

  it("claims only tasks of its queues, uses a given store and leaves it open", async () => {
    const logger = recordingLogger();
    const calls = new Map<string, number>();
    const worker = createWorker({ tasks, store: countingStore(store, calls).store, wakeups: "polling", queues: ["images"], pollIntervalMs: 50, logger });
    expect(worker.id).toMatch(/^.+:\d+:[0-9a-f]{6}$/);
    await worker.start();
    const image = await bed.insertTask("image", {}, { queue: "images" });
    const mail = await bed.insertTask("mail", {});
    const orphan = await bed.insertTask("enqueue-only", {}, { queue: "images" });
    await waitUntil(async () => (await bed.status(image)) === "succeeded", "the image task to run");
    const polled = calls.get("claimDue") ?? 0;
    await waitUntil(() => (calls.get("claimDue") ?? 0) >= polled + 3, "three more polls");
    expect(await bed.status(mail)).toBe("pending");
    expect(await bed.status(orphan)).toBe("pending");
    expect(ran.filter((id) => [image, mail, orphan].includes(id))).toEqual([image]);
    await Promise.all([worker.stop(), worker.stop()]);
    await worker.stop();
    expect(await store.check()).toBeUndefined();
    await expect(worker.start()).rejects.toMatchObject({
      code: "TASK_STOPPED",
      message: `Worker ${worker.id} was stopped and does not start again; create a new one with createWorker() to start again.`,
    });
  });
});

// PostgreSQL only: pg_stat_activity is how the test sees that a worker never started opened no connection.
describe("a worker never started (postgresql)", () => {
  let bed: WorkerTestBed;

  beforeAll(async () => {
    bed = await WorkerTestBed.create();
  });

  afterAll(async () => {
    await bed?.close();
  });

  it("stops cleanly when it was never started: nothing was opened, nothing logged as running, and it cannot start after", async () => {
    const logger = recordingLogger();
    const worker = createWorker({ tasks, databaseUrl: bed.url, logger });
    await expect(worker.stop()).resolves.toBeUndefined();
    await expect(worker.start()).rejects.toMatchObject({
      code: "TASK_STOPPED",
      message: `Worker ${worker.id} was stopped and does not start again; create a new one with createWorker() to start again.`,
    });
    const { rows } = await bed.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'task-runner worker'",
    );
    expect(rows[0]!.n).toBe(0);
    expect(logger.find("worker started")).toEqual([]);
  });
});
