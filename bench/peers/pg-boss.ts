// pg-boss as a benchmark peer: send() inside the app's Prisma transaction through its own fromPrisma adapter,
// insert() for bulk, work() with batches (see pg-boss-worker.ts) in the child processes.

import { fromPrisma, PgBoss } from "pg-boss";
import pg from "pg";
import { BUSINESS_SQL, runSql } from "../databases.js";
import { benchPrisma, BUSINESS_TRANSACTION } from "../prisma.js";
import type { Peer, Producer } from "./peer.js";
import { PGBOSS_BATCH_SIZE, PGBOSS_QUEUE, pgBossWorkerInstance, pgBossWorkOptions } from "./pg-boss-settings.js";

/** The harness's instance only sends: no supervisor, no cron, no schema work (the template has the schema). */
function producerBoss(connectionString: string): PgBoss {
  return new PgBoss({ connectionString, max: 4, supervise: false, schedule: false, migrate: false });
}

export const pgBoss: Peer = {
  database: "postgresql",
  broker: false,
  name: "pg-boss",
  workerModule: "../peers/pg-boss-worker.js",
  settings: {
    instance: pgBossWorkerInstance("(the scenario's database)", 10),
    work: pgBossWorkOptions(10),
    localConcurrency: "10 (1 process) or 5 (2 processes); max (pool) = localConcurrency + 2",
    batchSize: `${PGBOSS_BATCH_SIZE} per fetch loop; the handler receives the batch and pg-boss completes it in one statement`,
    queue: `createQueue("${PGBOSS_QUEUE}", { notify: true })`,
    enqueueInTransaction: "boss.send('noop', { n }, { db: fromPrisma(tx) })",
    bulk: "boss.insert('noop', 20,000 jobs): one statement",
    producer: "a second PgBoss instance with supervise: false, schedule: false, migrate: false",
  },

  async install(target) {
    const boss = new PgBoss({ connectionString: target.databaseUrl, supervise: false, schedule: false });
    boss.on("error", () => {});
    await boss.start();
    await boss.createQueue(PGBOSS_QUEUE, { notify: true });
    await boss.stop({ graceful: false });
    await runSql(target.databaseUrl, BUSINESS_SQL);
  },

  async open(target) {
    const prisma = benchPrisma(target.databaseUrl);
    const boss = producerBoss(target.databaseUrl);
    boss.on("error", () => {});
    await boss.start();
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 2 });
    pool.on("error", () => {}); // the scenario's database is dropped WITH (FORCE) after close()
    const insert = async (count: number) => {
      await boss.insert(
        PGBOSS_QUEUE,
        Array.from({ length: count }, (_, n) => ({ data: { n } })),
      );
    };
    const producer: Producer = {
      async transaction(n, enqueue) {
        await prisma.$transaction(async (tx) => {
          await tx.report.create({ data: {} });
          if (enqueue) await boss.send(PGBOSS_QUEUE, { n }, { db: fromPrisma(tx) });
        }, BUSINESS_TRANSACTION);
      },
      bulkAdd: insert,
      seed: insert,
      async remaining() {
        const { rows } = await pool.query<{ left: number }>(`SELECT EXISTS (SELECT 1 FROM pgboss.job WHERE name = $1 AND state < 'completed')::int AS left`, [
          PGBOSS_QUEUE,
        ]);
        return rows[0]!.left;
      },
      async flush() {},
      async close() {
        await boss.stop({ graceful: false });
        await prisma.$disconnect();
        await pool.end();
      },
    };
    return producer;
  },

  async cleanup() {},
};
