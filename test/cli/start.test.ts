// The long-running commands as subprocesses: `start` runs a task end to end (and a delayed one through its cleaner),
// logs each state change with the task id, and exits 0 after SIGTERM; a second SIGTERM gives a running task back at
// once; wrong credentials exit 1 before anything is declared on the broker.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import amqp from "amqplib";
import pg from "pg";
import { inject } from "vitest";
import { silentLogger, taskQueue } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { rowOf } from "../cleaner/rows.js";
import { fixtureDir, startCli, type CliRun } from "./cli-process.js";
import { tasks } from "../fixtures/cli-app/task-runner.config.js";

let db: TestDatabase;
let sql: pg.Pool;
const app = fixtureDir("cli-app");
const runs: CliRun[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
});

afterAll(async () => {
  for (const run of runs) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
  await Promise.all(runs.map((run) => run.exited));
  const model = await amqp.connect(inject("amqpUrl"));
  const channel = await model.createChannel();
  for (const prefix of prefixes) {
    for (const queue of [`${prefix}.q.default`, `${prefix}.dead`]) await channel.deleteQueue(queue);
    for (const exchange of [prefix, `${prefix}.dead`]) await channel.deleteExchange(exchange);
  }
  await model.close();
  await sql?.end();
  await db?.drop();
});

function launch(command: string, prefix: string, extra: Record<string, string | undefined> = {}): CliRun {
  prefixes.push(prefix);
  const run = startCli([command], { cwd: app, env: { DATABASE_URL: db.url, AMQP_URL: inject("amqpUrl"), PTQ_PREFIX: prefix, ...extra } });
  runs.push(run);
  return run;
}

const logged = (run: CliRun, message: string, fields: Record<string, unknown> = {}) =>
  run.logs().some((line) => line.message === message && Object.entries(fields).every(([key, value]) => line[key] === value));

describe("task-runner start", () => {
  it("runs a task end to end, wakes a delayed one through its cleaner, and exits 0 on SIGTERM", async () => {
    const prefix = uniquePrefix();
    const run = launch("start", prefix);
    await waitUntil(() => logged(run, "worker started") && logged(run, "cleaner is leading"), "the runner to start", 30_000);

    const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
    try {
      const report = await prisma.report.create({ data: {} });
      const later = await prisma.report.create({ data: {} });
      const now = await prisma.task.enqueue("finish-report", { reportId: report.id });
      const delayed = await prisma.task.enqueue("finish-report", { reportId: later.id }, { delayMs: 1000 });
      await waitUntil(async () => (await rowOf(sql, now.id))?.status === "succeeded", "the task to succeed", 20_000);
      await waitUntil(async () => (await rowOf(sql, delayed.id))?.status === "succeeded", "the delayed task to succeed", 20_000);
      expect(await prisma.report.findUnique({ where: { id: report.id } })).toMatchObject({ status: "done", result: "attempt 1" });
      expect(await rowOf(sql, now.id)).toMatchObject({ attempts: 1, result: { reportId: report.id } });
      expect(logged(run, "task claimed", { taskId: now.id })).toBe(true);
      expect(run.logs().filter((line) => line.taskId === delayed.id).length).toBeGreaterThanOrEqual(2);
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }

    run.process.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(logged(run, "worker stopped")).toBe(true);
    expect(logged(run, "cleaner stopped")).toBe(true);
  });

  it("a second SIGTERM cuts the grace period: the running task goes back to pending without using an attempt", async () => {
    const prefix = uniquePrefix();
    // A grace period far longer than the test's timeout: only the second signal can make the worker exit in time.
    const run = launch("worker", prefix, { PTQ_GRACE_MS: "600000" });
    await waitUntil(() => logged(run, "worker started"), "the worker to start", 30_000);
    const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }));
    try {
      const task = await prisma.task.enqueue("slow-report", { reportId: "r" });
      await waitUntil(async () => (await rowOf(sql, task.id))?.status === "running", "the task to run", 20_000);
      run.process.kill("SIGTERM");
      await waitUntil(() => run.logs().some((line) => /SIGTERM received/.test(line.message)), "the first signal to register", 10_000);
      run.process.kill("SIGTERM");
      expect(await run.exited).toBe(0);
      expect(logged(run, "second signal: giving running tasks back to pending now")).toBe(true);
      expect(await rowOf(sql, task.id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }
  });
});

describe("failing to start", () => {
  it("wrong database credentials exit 1 with a clear message before anything touches the broker", async () => {
    const prefix = uniquePrefix();
    const url = new URL(db.url);
    url.username = "no_such_user";
    const run = launch("start", prefix, { DATABASE_URL: url.toString() });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/^task-runner start: cannot use the database at postgresql:\/\/no_such_user@.*the credentials were refused/);
    const model = await amqp.connect(inject("amqpUrl"));
    try {
      const channel = await model.createChannel();
      channel.on("error", () => {});
      await expect(channel.checkExchange(prefix)).rejects.toThrow(/NOT_FOUND/);
    } finally {
      await model.close();
    }
  });
});
