// graphile-worker as a benchmark peer: add_job() inside the app's Prisma transaction, addJobs() for bulk,
// its runner (see graphile-worker-worker.ts) in the child processes.

import { makeWorkerUtils, runMigrations } from "graphile-worker";
import pg from "pg";
import { BUSINESS_SQL, runSql } from "../databases.js";
import { benchPrisma, BUSINESS_TRANSACTION } from "../prisma.js";
import { GRAPHILE_TASK, graphileWorkerOptions, silentGraphileLogger } from "./graphile-worker-settings.js";
import type { Peer, Producer } from "./peer.js";

export const graphileWorker: Peer = {
  database: "postgresql",
  broker: false,
  name: "graphile-worker",
  workerModule: "../peers/graphile-worker-worker.js",
  settings: {
    ...graphileWorkerOptions("(the scenario's database)", 10),
    concurrentJobs: "10 (1 process) or 5 (2 processes)",
    maxPoolSize: "max(10, concurrentJobs + 2), as its docs advise",
    enqueueInTransaction: "SELECT graphile_worker.add_job('noop', $1::json) through the Prisma transaction",
    bulk: "WorkerUtils.addJobs(20,000 specs): one add_jobs() call",
    wakeups: "LISTEN/NOTIFY (built in, always on)",
  },

  async install(target) {
    await runMigrations({ connectionString: target.databaseUrl, logger: silentGraphileLogger });
    await runSql(target.databaseUrl, BUSINESS_SQL);
  },

  async open(target) {
    const prisma = benchPrisma(target.databaseUrl);
    // Our own pool for WorkerUtils, with an error listener, ended by close(): the scenario's database is dropped
    // WITH (FORCE) right after, and a pool we do not own could still hold an idle client that the drop terminates.
    const utilsPool = new pg.Pool({ connectionString: target.databaseUrl, max: 4 });
    utilsPool.on("error", () => {});
    const utils = await makeWorkerUtils({ pgPool: utilsPool, logger: silentGraphileLogger });
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 2 });
    pool.on("error", () => {});
    const addJobs = async (count: number) => {
      await utils.addJobs(Array.from({ length: count }, (_, n) => ({ identifier: GRAPHILE_TASK, payload: { n } })));
    };
    const producer: Producer = {
      async transaction(n, enqueue) {
        await prisma.$transaction(async (tx) => {
          await tx.report.create({ data: {} });
          if (enqueue) await tx.$executeRawUnsafe(`SELECT graphile_worker.add_job($1, $2::json)`, GRAPHILE_TASK, JSON.stringify({ n }));
        }, BUSINESS_TRANSACTION);
      },
      bulkAdd: addJobs,
      seed: addJobs,
      async remaining() {
        const { rows } = await pool.query<{ left: number }>(`SELECT EXISTS (SELECT 1 FROM graphile_worker._private_jobs)::int AS left`);
        return rows[0]!.left;
      },
      async flush() {},
      async close() {
        await utils.release();
        await utilsPool.end();
        await prisma.$disconnect();
        await pool.end();
      },
    };
    return producer;
  },

  async cleanup() {},
};
