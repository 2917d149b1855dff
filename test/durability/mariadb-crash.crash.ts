// MariaDB killed mid-drain (SIGKILL of a mariadbd of the test's own, innodb_flush_log_at_trx_commit = 1), then started
// again: MariaDB has no per-session asynchronous commit (only the server-wide innodb_flush_log_at_trx_commit), so the
// worker's options change nothing there and every commit is durable. The crash undoes no committed claim or success:
// every task ends succeeded, a task runs again only after a run the crash broke, never twice at once, and every
// transactional task's effect row exists once.

import { afterAll, beforeAll, expect, it } from "vitest";
import { mysqlBusinessSql, mysqlConnection, mysqlDatabaseUrl, mysqlMigrationSql, runMysqlScripts } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { OwnMariadbServer } from "../support/own-mariadb-server.js";
import { drainWithCrash, EFFECTS_TABLE, type CrashableServer } from "./crash-drain.js";
import { crashSummary } from "./crash-summary.js";

const TOTAL = Number(process.env.PTQ_CRASH_TASKS ?? 3000);

let server: OwnMariadbServer;
let databases = 0;

const crashable: CrashableServer = {
  async freshDatabase() {
    const name = `crash_${++databases}`;
    await runMysqlScripts(server.url(), undefined, [`CREATE DATABASE \`${name}\``]);
    const effects = `CREATE TABLE ${EFFECTS_TABLE} (task_id CHAR(36) CHARACTER SET ascii NOT NULL, at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))`;
    await runMysqlScripts(server.url(), name, [...mysqlMigrationSql(), mysqlBusinessSql(), effects]);
    return mysqlDatabaseUrl(server.url(), name);
  },
  async crashAndRestart() {
    await server.crash();
    await server.restart();
  },
  async count(url, sql) {
    const connection = await mysqlConnection(server.url(), new URL(url).pathname.slice(1));
    try {
      const rows = await connection.query<Array<{ n: bigint | number }>>(sql);
      return Number(rows[0]!.n);
    } finally {
      await connection.end();
    }
  },
  prisma: (url) => testMysqlPrisma(url) as unknown as ReturnType<CrashableServer["prisma"]>,
};

beforeAll(async () => {
  server = await OwnMariadbServer.start();
});

afterAll(async () => {
  await server?.close();
});

it("MariaDB killed mid-drain, default options: no task lost, no committed success undone, none runs twice at once", async () => {
  const report = await drainWithCrash(crashable, {
    total: TOTAL,
    crashAfter: Math.round(TOTAL / 3),
    transactionalEvery: 10,
    worker: {},
    leaseMs: 6000,
    timeoutMs: 90_000,
  });
  console.log(`[crash] mariadb, server killed, default options: ${crashSummary(report)}`);
  expect(report.unfinished).toEqual([]);
  expect(report.wrongEffects).toEqual([]);
  expect(report.lostCompletions).toBe(0);
  expect(report.unexplainedReruns).toEqual([]);
  expect(report.afterLeaseLoss).toEqual([]);
  expect(report.overlapping).toEqual([]);
});
