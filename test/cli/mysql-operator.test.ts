// The CLI on a mysql:// URL, as subprocesses against the real MariaDB and RabbitMQ: status (counts, due ages, the
// leading cleaner's session), retry, cancel and run with their exit codes and wake-ups, `start` running a task end to
// end through its worker and a delayed one through its cleaner, and a missing database failing with the server's words.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import amqp from "amqplib";
import type { Pool } from "mariadb";
import { inject } from "vitest";
import { electionTiming } from "../../src/cleaner/election-timing.js";
import { openStore, silentLogger, taskQueue, type Store } from "../../src/index.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { waitUntil } from "../support/wait.js";
import { tasks } from "../fixtures/cli-app/task-runner.config.js";
import { insertMysqlRows, mysqlRowOf } from "../mysql/rows.js";
import { fixtureDir, runCli, startCli, type CliRun } from "./cli-process.js";

let db: MysqlTestDatabase;
let sql: Pool;
let store: Store;
let prefix: string;
let counter: WakeupCounter;
const app = fixtureDir("cli-mysql");
let env: Record<string, string>;
const runs: CliRun[] = [];
const missing = "0193c0de-0000-7000-8000-000000000000";

beforeAll(async () => {
  db = await createMysqlTestDatabase();
  sql = mysqlTestPool(db);
  store = openStore(db.url, { max: 2 });
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default", "mail"]);
  env = { DATABASE_URL: db.url, AMQP_URL: inject("amqpUrl"), PTQ_PREFIX: prefix };
});

afterAll(async () => {
  for (const run of runs) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
  await Promise.all(runs.map((run) => run.exited));
  await counter?.close();
  const model = await amqp.connect(inject("amqpUrl"));
  const channel = await model.createChannel();
  for (const queue of [`${prefix}.q.default`, `${prefix}.q.mail`, `${prefix}.dead`]) await channel.deleteQueue(queue);
  for (const exchange of [prefix, `${prefix}.dead`]) await channel.deleteExchange(exchange);
  await model.close();
  await store?.close();
  await sql?.end();
  await db?.drop();
});

describe("status", () => {
  it("prints counts by queue, name and status, the oldest due task, and the session of the leading cleaner", async () => {
    await insertMysqlRows(sql, [
      { name: "finish-report", createdAgoMs: 90_000, publishedAgoMs: 80_000 },
      { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
      { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
      { name: "send-email", queue: "mail", status: "dead", finishedAgoMs: 1000 },
    ]);
    const result = await runCli(["status"], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^default\s+finish-report\s+1\s+0\s+2\s+0\s+0$/m);
    expect(result.stdout).toMatch(/^mail\s+send-email\s+0\s+0\s+0\s+1\s+0$/m);
    expect(result.stdout).toMatch(/^ {2}default: 1 due, oldest waiting (8\d|9\d|1\d\d)\.\d s$/m);
    expect(result.stdout).toContain("Cleaner: none leads.");

    const lock = store.leaderLock(store.defaultLockKey(), electionTiming(1000), silentLogger);
    try {
      expect(await lock.check()).toBe(true);
      const sessions = (await sql.query("SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ?", [db.name])) as Array<{ id: number }>;
      const leading = await runCli(["status", "--json"], { cwd: app, env });
      expect(leading.code).toBe(0);
      const report = JSON.parse(leading.stdout);
      expect(report.cleaner.leading).toBe(true);
      expect(sessions.map((s) => Number(s.id))).toContain(report.cleaner.pid);
    } finally {
      await lock.release();
    }
  });
});

describe("operator actions", () => {
  it("retry puts a dead task back to pending and wakes it; a missing or pending task exits 3", async () => {
    const [dead, pending] = await insertMysqlRows(sql, [
      { name: "finish-report", status: "dead", attempts: 5, finishedAgoMs: 1000 },
      { name: "finish-report" },
    ]);
    expect(await runCli(["retry", dead!], { cwd: app, env })).toMatchObject({ code: 0, stdout: `Retried task ${dead}: pending again, woken now.\n` });
    expect(await mysqlRowOf(sql, dead!)).toMatchObject({ status: "pending", attempts: 0, finished_at: null });
    await counter.waitFor(() => counter.counts.get(dead!) === 1, "the retried task's wake-up");
    expect(await runCli(["retry", missing], { cwd: app, env })).toMatchObject({ code: 3, stderr: `task-runner retry: task ${missing} not found in "tasks".\n` });
    expect(await runCli(["retry", pending!], { cwd: app, env })).toMatchObject({
      code: 3,
      stderr: `task-runner retry: task ${pending} (finish-report) is pending; only dead or cancelled tasks can be retried.\n`,
    });
  });

  it("retry --dead --name retries every dead task of that name and no other", async () => {
    await sql.query("UPDATE tasks SET status = 'succeeded' WHERE status = 'dead'");
    const [a, b, other] = await insertMysqlRows(sql, [
      { name: "send-email", queue: "mail", payload: { to: "a" }, status: "dead", finishedAgoMs: 1000 },
      { name: "send-email", queue: "mail", payload: { to: "b" }, status: "dead", finishedAgoMs: 1000 },
      { name: "finish-report", status: "dead", finishedAgoMs: 1000 },
    ]);
    const result = await runCli(["retry", "--dead", "--name", "send-email"], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stdout: "Retried 2 dead tasks of send-email: pending again, woken now.\n" });
    expect((await mysqlRowOf(sql, other!))?.status).toBe("dead");
    await counter.waitFor(() => counter.counts.get(a!) === 1 && counter.counts.get(b!) === 1, "both wake-ups");
  });

  it("cancel cancels a pending task (0), then refuses to cancel it again (3)", async () => {
    const [id] = await insertMysqlRows(sql, [{ name: "finish-report", runAgoMs: -3_600_000 }]);
    expect(await runCli(["cancel", id!], { cwd: app, env })).toMatchObject({ code: 0, stdout: `Cancelled task ${id}.\n` });
    expect(await mysqlRowOf(sql, id!)).toMatchObject({ status: "cancelled", finished_at: expect.any(Date) });
    expect(await runCli(["cancel", id!], { cwd: app, env })).toMatchObject({
      code: 3,
      stderr: `task-runner cancel: task ${id} (finish-report) is cancelled; only pending tasks can be cancelled.\n`,
    });
  });

  it("run makes a delayed task due now (by the database clock) and wakes it", async () => {
    const [id] = await insertMysqlRows(sql, [{ name: "finish-report", runAgoMs: -3_600_000 }]);
    // An id in capitals names the same task, as PostgreSQL's uuid type does.
    expect(await runCli(["run", id!.toUpperCase()], { cwd: app, env })).toMatchObject({ code: 0, stdout: `Task ${id} is due now: woken now.\n` });
    const row = await mysqlRowOf(sql, id!);
    expect(row?.run_at.getTime()).toBeLessThanOrEqual((await store.now()).getTime());
    await counter.waitFor(() => counter.counts.get(id!) === 1, "the wake-up");
  });
});

describe("start", () => {
  it("runs a task end to end, wakes a delayed one through its cleaner, and exits 0 on SIGTERM", async () => {
    const own = uniquePrefix();
    const run = startCli(["start"], { cwd: app, env: { ...env, PTQ_PREFIX: own } });
    runs.push(run);
    const logged = (message: string, fields: Record<string, unknown> = {}) =>
      run.logs().some((line) => line.message === message && Object.entries(fields).every(([key, value]) => line[key] === value));
    const prisma = testMysqlPrisma(db.url).$extends(taskQueue({ tasks, amqpUrl: inject("amqpUrl"), amqpPrefix: own, logger: silentLogger }));
    try {
      await waitUntil(() => logged("worker started") && logged("cleaner is leading"), "the runner to start", 30_000);
      const report = await prisma.report.create({ data: {} });
      const later = await prisma.report.create({ data: {} });
      const now = await prisma.task.enqueue("finish-report", { reportId: report.id });
      const delayed = await prisma.task.enqueue("finish-report", { reportId: later.id }, { delayMs: 1000 });
      await waitUntil(async () => (await mysqlRowOf(sql, now.id))?.status === "succeeded", "the task to succeed", 20_000);
      await waitUntil(async () => (await mysqlRowOf(sql, delayed.id))?.status === "succeeded", "the delayed task to succeed", 20_000);
      expect(await prisma.report.findUnique({ where: { id: report.id } })).toMatchObject({ status: "done", result: "attempt 1" });
      expect(await mysqlRowOf(sql, now.id)).toMatchObject({ attempts: 1, result: { reportId: report.id } });
      expect(logged("task claimed", { taskId: now.id })).toBe(true);
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
      const model = await amqp.connect(inject("amqpUrl"));
      const channel = await model.createChannel();
      run.process.kill("SIGTERM");
      expect(await run.exited).toBe(0);
      for (const queue of [`${own}.q.default`, `${own}.q.mail`, `${own}.dead`]) await channel.deleteQueue(queue);
      for (const exchange of [own, `${own}.dead`]) await channel.deleteExchange(exchange);
      await model.close();
    }
    expect(logged("worker stopped") && logged("cleaner stopped")).toBe(true);
  });
});

describe("failures", () => {
  it("a missing database exits 1 with the server's words and the fix; the config's dead-end URL is overridden", async () => {
    const url = new URL(db.url);
    url.pathname = `/${db.name}_nope`;
    const result = await runCli(["status"], { cwd: app, env: { ...env, DATABASE_URL: url.toString() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Unknown database '${db.name}_nope'; that database does not exist: check the database name in the environment variable DATABASE_URL`);
    const fromFile = await runCli(["status"], { cwd: app, env: { ...env, DATABASE_URL: undefined } });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain("cannot use the database at mysql://nobody@127.0.0.1:1/not_this_one");
    expect(fromFile.stderr).toContain("is MySQL running and reachable there? Check the host and port in databaseUrl in ./task-runner.config.ts.");
  });
});
