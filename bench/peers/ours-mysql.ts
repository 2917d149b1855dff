// prisma-task-queue on MySQL/MariaDB as a benchmark peer, with the library's default options and RabbitMQ wake-ups as
// "ours" has on PostgreSQL: enqueue through the extension on the app's client (@prisma/adapter-mariadb), the worker of
// src/worker (ours-worker.ts) in the child processes on its own mariadb pool.

import { mysqlBusinessSql, mysqlMigrationSql, mysqlTestPool, runMysqlScripts } from "../../test/support/mysql-database.js";
import { benchPrisma } from "../prisma.js";
import { deleteTopology, oursProducer } from "./ours.js";
import type { Peer } from "./peer.js";

/** The database a mysql:// URL names, and the URL itself as the server to reach it on. */
const where = (url: string) => ({ serverUrl: url, name: decodeURIComponent(new URL(url).pathname.slice(1)) });

export const oursMysql: Peer = {
  name: "ours-mysql",
  database: "mysql",
  broker: true,
  workerModule: "../peers/ours-worker.js",
  measuresLateness: true,
  settings: {
    server: "MYSQL_URL, else the local MariaDB; sessions with the server's defaults",
    adapter: "@prisma/adapter-mariadb, pool of 20 connections (the app's client)",
    concurrency: "10 (1 process) or 5 (2 processes): the worker's `concurrency`, also its RabbitMQ prefetch",
    leaseMs: "30000 (default)",
    pollIntervalMs: "1000 (default; polling only runs while the broker is unreachable, and once at start)",
    store: "the worker's own mariadb pool (6 connections, as createWorker opens it), READ COMMITTED transactions, claims by id with SELECT … FOR UPDATE SKIP LOCKED",
    logger: "silentLogger",
    wakeups: "published after commit by the extension, coalesced per event-loop turn, up to 500 ids per message",
  },

  async install(target) {
    const { serverUrl, name } = where(target.databaseUrl);
    await runMysqlScripts(serverUrl, name, [...mysqlMigrationSql(), mysqlBusinessSql()]); // the shipped migration and the tests' business table
  },

  async open(target) {
    const pool = mysqlTestPool(where(target.databaseUrl), 2);
    return oursProducer(benchPrisma(target.databaseUrl), target, {
      async remaining() {
        const rows = await pool.query<Array<{ remaining: number }>>(
          "SELECT (EXISTS (SELECT 1 FROM tasks WHERE status = 'pending') OR EXISTS (SELECT 1 FROM tasks WHERE status = 'running')) AS remaining",
        );
        return Number(rows[0]!.remaining);
      },
      close: () => pool.end(),
    });
  },

  async cleanup(target) {
    await deleteTopology(target);
  },
};
