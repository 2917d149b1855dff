// The CLI's output in the default setups without a broker, as subprocesses: PostgreSQL (woken by NOTIFY) and a SQLite
// file (a worker in another process polls). Start, a dead task, a retry and status print nothing false: no warning
// about the missing broker, the transport that really brings the work, and what actually happens without a cleaner.

import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, silentLogger, taskQueue, type Store } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";
import { tasks } from "../fixtures/cli-quiet/task-runner.config.js";
import { fixtureDir, runCli, startCli, type CliRun } from "./cli-process.js";

const app = fixtureDir("cli-quiet");
const runs: CliRun[] = [];

function launch(args: string[], databaseUrl: string): CliRun {
  const run = startCli(args, { cwd: app, env: { DATABASE_URL: databaseUrl } });
  runs.push(run);
  return run;
}

const logged = (run: CliRun, message: string) => run.logs().filter((line) => line.message === message);
/** The tasks' own failures, which are warnings and errors by right: the failing handlers' doing, told truly. */
const TASK_OUTCOMES = ["task failed, retry scheduled", "task dead"];
/** Warnings and errors about anything else: in these setups, none is due. */
const warnings = (run: CliRun) => run.logs().filter((line) => (line.level === "warn" || line.level === "error") && !TASK_OUTCOMES.includes(line.message));

async function stop(run: CliRun): Promise<void> {
  run.process.kill("SIGTERM");
  expect(await run.exited).toBe(0);
}

afterAll(async () => {
  for (const run of runs) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
  await Promise.all(runs.map((run) => run.exited));
});

describe("PostgreSQL without a broker (NOTIFY)", () => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = openStore(db.url, { max: 1 });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("task-runner start warns of nothing, says NOTIFY wakes the worker, and a dead task brings no dead-letter warning", async () => {
    const run = launch(["start"], db.url);
    await waitUntil(() => logged(run, "worker started").length === 1 && logged(run, "cleaner is leading").length === 1, "the runner to start", 30_000);
    expect(logged(run, "worker started")[0]).toMatchObject({ wakeups: "woken by PostgreSQL NOTIFY" });
    expect(warnings(run)).toEqual([]);

    const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, logger: silentLogger }));
    try {
      const task = await prisma.task.enqueue("always-fails", {});
      await waitUntil(() => logged(run, "task dead").some((line) => line.taskId === task.id), "the task to die", 20_000);
      expect((await store.findTask(task.id))?.status).toBe("dead");
      // Nothing was sent for it, and nothing is wrong with that: no broker, no dead-letter queue.
      expect(warnings(run).filter((line) => line.taskId === task.id)).toEqual([]);
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }
    await stop(run);
    expect(warnings(run)).toEqual([]);
  });
});

describe("SQLite without a broker (a worker in another process, woken through its local socket)", () => {
  let db: SqliteTestDatabase;
  let store: Store;
  let prisma: ReturnType<typeof enqueuer>;
  const enqueuer = (url: string) => sqlitePrisma(url, { timeout: 5000 }).$extends(taskQueue({ tasks, logger: silentLogger }));
  beforeAll(async () => {
    db = await createSqliteDatabase();
    store = openStore(db.url);
    prisma = enqueuer(db.url);
  });
  afterAll(async () => {
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await store?.close();
    await db?.drop();
  });

  it("the worker says how it is woken; retries run without a cleaner, and status says so; a dead task warns of nothing", async () => {
    const worker = launch(["worker"], db.url);
    await waitUntil(() => logged(worker, "worker started").length === 1, "the worker to start", 30_000);
    expect(logged(worker, "worker started")[0]).toMatchObject({
      wakeups: "polls every 1000 ms; woken at once for tasks enqueued on this host (in this process directly, from other processes through a local socket)",
    });
    expect(logged(worker, "worker started")[0]).not.toHaveProperty("transport");

    const retried = await prisma.task.enqueue("fails-once", {});
    const dead = await prisma.task.enqueue("always-fails", {});
    await waitUntil(async () => (await store.findTask(retried.id))?.status === "succeeded", "the retry to run with no cleaner", 20_000);
    await waitUntil(async () => (await store.findTask(dead.id))?.status === "dead", "the other task to die", 20_000);
    expect(warnings(worker).filter((line) => line.taskId === dead.id)).toEqual([]);
    expect(await store.findTask(retried.id)).toMatchObject({ attempts: 2, errors: [expect.objectContaining({ attempt: 1 })] });

    const status = await runCli(["status"], { cwd: app, env: { DATABASE_URL: db.url } });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain("retries, expired leases and lost wake-ups wait");
    expect(status.stdout).toContain(
      "Cleaner: none leads. Workers poll for due tasks, so delayed tasks and retries still run; tasks whose worker died " +
        "(expired leases) wait until one runs (task-runner cleaner), and finished tasks are not pruned.\n",
    );

    // Retried by hand, the dead task is woken through the worker's local socket (no cleaner runs), as the command says.
    const retry = await runCli(["retry", dead.id], { cwd: app, env: { DATABASE_URL: db.url } });
    expect(retry).toEqual({ code: 0, stdout: `Retried task ${dead.id}: pending again, woken now.\n`, stderr: "" });
    await waitUntil(async () => (await store.findTask(dead.id))?.errors.length === 2, "the retried task to run again", 20_000);

    await stop(worker);
    expect(warnings(worker)).toEqual([]);
  });

  it("a paused queue's task waits over the worker in another process; resumed, it is woken through the worker's socket", async () => {
    const env = { DATABASE_URL: db.url };
    const worker = launch(["worker"], db.url);
    await waitUntil(() => logged(worker, "worker started").length === 1, "the worker to start", 30_000);
    expect(await runCli(["pause", "default"], { cwd: app, env })).toEqual({
      code: 0,
      stdout: "Paused queue default: its tasks wait; running ones finish. Resume with: task-runner resume default\n",
      stderr: "",
    });
    const task = await prisma.task.enqueue("fails-once", {});
    // Its wake-up reached the worker at commit and three of the worker's polls (every 1 s) came by: none claimed it.
    const enqueuedBy = (await store.now()).getTime();
    await waitUntil(async () => (await store.now()).getTime() > enqueuedBy + 3000, "three poll intervals of the database clock", 10_000);
    expect(await store.findTask(task.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(logged(worker, "task claimed")).toEqual([]);

    expect(await runCli(["resume", "default"], { cwd: app, env })).toEqual({ code: 0, stdout: "Resumed queue default: 1 due task, woken now.\n", stderr: "" });
    await waitUntil(async () => (await store.findTask(task.id))?.status === "succeeded", "the resumed task to run", 20_000);
    expect(logged(worker, "task claimed").filter((line) => line.taskId === task.id)[0]).toMatchObject({ attempt: 1, via: "wakeup" });
    await stop(worker);
    expect(warnings(worker)).toEqual([]);
  });

  it("status names the leading cleaner's process and host, not a database backend", async () => {
    const cleaner = launch(["cleaner"], db.url);
    await waitUntil(() => logged(cleaner, "cleaner is leading").length === 1, "the cleaner to lead", 30_000);
    const status = await runCli(["status"], { cwd: app, env: { DATABASE_URL: db.url } });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Cleaner: leading (process ${cleaner.process.pid} on ${hostname()}).\n`);
    const json = JSON.parse((await runCli(["status", "--json"], { cwd: app, env: { DATABASE_URL: db.url } })).stdout) as Record<string, unknown>;
    expect(json.cleaner).toMatchObject({ leading: true, pid: cleaner.process.pid, pidOf: "process", host: hostname() });
    await stop(cleaner);
    expect(warnings(cleaner)).toEqual([]);
  });
});
