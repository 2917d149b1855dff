// prisma-task-queue as a benchmark peer: enqueue through the Prisma extension inside the app's transaction,
// wake-ups through RabbitMQ, and the worker of src/worker (see ours-worker.ts) in the child processes.

import amqp from "amqplib";
import pg from "pg";
import { silentLogger, taskQueue } from "../../src/index.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { benchPrisma, BUSINESS_TRANSACTION, type BenchPrisma } from "../prisma.js";
import { applySchema } from "../../test/support/schema.js";
import { BENCH_TASK, benchTasks } from "./ours-tasks.js";
import type { Peer, Producer, RunTarget } from "./peer.js";

/** How long an interactive transaction may run: enqueueMany of 20,000 takes longer than Prisma's 5 s default on a busy machine. */
const LONG_TRANSACTION = { timeout: 120_000, maxWait: 10_000 };

export const ours: Peer = {
  name: "ours",
  database: "postgresql",
  broker: true,
  workerModule: "../peers/ours-worker.js",
  measuresLateness: true,
  settings: {
    concurrency: "10 (1 process) or 5 (2 processes): the worker's `concurrency`; its RabbitMQ prefetch is concurrency + claimAhead (1000, the default)",
    leaseMs: "30000 (default)",
    pollIntervalMs: "1000 (default; polling only runs while the broker is unreachable, and once at start)",
    logger: "silentLogger",
    wakeups: "published after commit by the extension, coalesced per event-loop turn, up to 500 ids per message",
  },

  async install(target) {
    await applySchema(target.databaseUrl); // the shipped migration and the tests' business tables
  },

  async open(target) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 2 });
    pool.on("error", () => {}); // the scenario's database is dropped WITH (FORCE) after close()
    return oursProducer(benchPrisma(target.databaseUrl), target, {
      async remaining() {
        const { rows } = await pool.query<{ left: number }>(
          `SELECT (EXISTS (SELECT 1 FROM tasks WHERE status = 'pending') OR EXISTS (SELECT 1 FROM tasks WHERE status = 'running'))::int AS left`,
        );
        return rows[0]!.left;
      },
      close: () => pool.end(),
    });
  },

  async cleanup(target: RunTarget) {
    await deleteTopology(target);
  },
};

/**
 * Ours as the app sees it on any dialect: the extension on the app's Prisma client `base`, enqueue inside its
 * transactions. `remaining` and `close` come from the dialect's peer (a cheap query of its own).
 */
export function oursProducer(base: BenchPrisma, target: RunTarget, own: { remaining(): Promise<number>; close(): Promise<void> }): Producer {
  const client = base.$extends(taskQueue({ tasks: benchTasks(), amqpUrl: target.amqpUrl, amqpPrefix: target.prefix, logger: silentLogger }));
  const addMany = (count: number) =>
    client.$transaction((tx) => tx.task.enqueueMany(Array.from({ length: count }, (_, n) => ({ name: BENCH_TASK, payload: { n } }))), LONG_TRANSACTION);
  return {
    async transaction(n, enqueue) {
      if (!enqueue) {
        await base.$transaction(async (tx) => {
          await tx.report.create({ data: {} });
        }, BUSINESS_TRANSACTION);
        return;
      }
      await client.$transaction(async (tx) => {
        await tx.report.create({ data: {} });
        await tx.task.enqueue(BENCH_TASK, { n });
      }, BUSINESS_TRANSACTION);
    },
    async bulkAdd(count) {
      await addMany(count);
    },
    async delayedAdd(delaysMs) {
      const tasks = await client.$transaction(
        (tx) => tx.task.enqueueMany(delaysMs.map((delayMs, n) => ({ name: BENCH_TASK, payload: { n }, options: { delayMs } }))),
        LONG_TRANSACTION,
      );
      return tasks.map((task) => task.runAt.getTime());
    },
    async seed(count) {
      await addMany(count);
      await client.$taskQueue.flush();
    },
    ...(target.amqpUrl ? { wakeupsWaiting: () => wakeupsWaiting(target) } : {}),
    async seedSingly(count, concurrency) {
      // One app client per lane, as if each were an app process: each publishes its own transaction's wake-up alone.
      const lanes = Array.from({ length: concurrency }, () =>
        base.$extends(taskQueue({ tasks: benchTasks(), amqpUrl: target.amqpUrl, amqpPrefix: target.prefix, logger: silentLogger })),
      );
      let next = 0;
      try {
        await Promise.all(
          lanes.map(async (lane) => {
            while (next < count) {
              const n = next++;
              await lane.$transaction(async (tx) => {
                await tx.report.create({ data: {} });
                await tx.task.enqueue(BENCH_TASK, { n });
              }, BUSINESS_TRANSACTION);
              await lane.$taskQueue.flush();
            }
          }),
        );
      } finally {
        await Promise.all(lanes.map((lane) => lane.$taskQueue.close()));
      }
    },
    remaining: () => own.remaining(),
    flush: () => client.$taskQueue.flush(),
    async close() {
      await client.$taskQueue.close();
      await base.$disconnect();
      await own.close();
    },
  };
}

/** Wake-up messages waiting in the RabbitMQ queue of the bench task's queue ("default"). */
async function wakeupsWaiting(target: RunTarget): Promise<number> {
  const model = await amqp.connect(target.amqpUrl);
  try {
    const channel = await model.createChannel();
    return (await channel.checkQueue(topology(target.prefix).queueName("default"))).messageCount;
  } finally {
    await model.close();
  }
}

/** Deletes the RabbitMQ queues and exchanges of a run's prefix. */
export async function deleteTopology(target: RunTarget): Promise<void> {
  const names = topology(target.prefix);
  const model = await amqp.connect(target.amqpUrl);
  try {
    const channel = await model.createChannel();
    await channel.deleteQueue(names.queueName("default"));
    await channel.deleteQueue(names.deadLetterQueue);
    await channel.deleteExchange(names.exchange);
    await channel.deleteExchange(names.deadLetterExchange);
  } finally {
    await model.close();
  }
}
