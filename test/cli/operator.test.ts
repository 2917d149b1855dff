// The CLI's operator commands as subprocesses on PostgreSQL and MySQL (status, retry, cancel, run, exit codes and
// wake-ups), then what only one shows: PostgreSQL's show, NOTIFY, polling and URL choice; MySQL's start and errors.

import amqp from "amqplib";
import type { Pool } from "mariadb";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { electionTiming } from "../../src/cleaner/election-timing.js";
import { openStore, silentLogger, taskQueue, type Store } from "../../src/index.js";
import { insertRows, type RowSpec } from "../cleaner/rows.js";
import { mysqlStoreDialect, postgresStoreDialect, type StoreDialect } from "../conformance/store/dialects.js";
import { tasks } from "../fixtures/cli-app/task-runner.config.js";
import { insertMysqlRows } from "../mysql/rows.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { mysqlTestPool } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { waitUntil } from "../support/wait.js";
import { fixtureDir, runCli, startCli, type CliRun } from "./cli-process.js";

const missing = "0193c0de-0000-7000-8000-000000000000";

/** Writes task rows as a crash or a lost message leaves them (times before the database clock), in the dialect's SQL. */
interface RowWriter {
  insert(specs: RowSpec[]): Promise<string[]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

interface CliDialect {
  name: string;
  store: StoreDialect;
  /** The fixture app whose task-runner.config.ts the CLI finds. */
  app: string;
  rows(url: string): RowWriter;
}

const CLI_DIALECTS: CliDialect[] = [
  {
    name: "postgresql",
    store: postgresStoreDialect,
    app: fixtureDir("cli-app"),
    rows(url) {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      pool.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
      return { insert: (specs) => insertRows(pool, specs), exec: async (sql) => void (await pool.query(sql)), close: () => pool.end() };
    },
  },
  {
    name: "mysql",
    store: mysqlStoreDialect,
    app: fixtureDir("cli-mysql"),
    rows(url) {
      const pool: Pool = mysqlTestPool({ serverUrl: url, name: new URL(url).pathname.slice(1) });
      return { insert: (specs) => insertMysqlRows(pool, specs), exec: async (sql) => void (await pool.query(sql)), close: () => pool.end() };
    },
  },
];

/** A database of the dialect with a store and a row writer on it, a broker prefix with a listener, the CLI's env. */
function cliBed(dialect: CliDialect) {
  const bed = {} as { url: string; store: Store; rows: RowWriter; prefix: string; counter: WakeupCounter; env: Record<string, string>; drop(): Promise<void> };
  beforeAll(async () => {
    const database = await dialect.store.createDatabase();
    Object.assign(bed, {
      url: database.url,
      drop: () => database.drop(),
      store: openStore(database.url, { max: 2 }),
      rows: dialect.rows(database.url),
      prefix: uniquePrefix(),
    });
    bed.counter = await WakeupCounter.start(bed.prefix, ["default", "mail"]);
    bed.env = { DATABASE_URL: database.url, AMQP_URL: inject("amqpUrl"), PTQ_PREFIX: bed.prefix };
  });
  afterAll(async () => {
    await bed.counter?.close();
    await bed.store?.close();
    await bed.rows?.close();
    await bed.drop?.();
  });
  return bed;
}

describe.each(CLI_DIALECTS)("operator commands ($name)", (dialect) => {
  const bed = cliBed(dialect);
  const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { cwd: dialect.app, env: { ...bed.env, ...env } });

  describe("status", () => {
    it("prints counts by queue, name and status, the oldest due task, and that no cleaner leads", async () => {
      await bed.rows.insert([
        { name: "finish-report", createdAgoMs: 90_000, publishedAgoMs: 80_000 },
        { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
        { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
        { name: "send-email", queue: "mail", status: "dead", finishedAgoMs: 1000 },
      ]);
      const result = await cli(["status"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(/^QUEUE\s+TASK\s+PENDING\s+RUNNING\s+SUCCEEDED\s+DEAD\s+CANCELLED$/m);
      expect(result.stdout).toMatch(/^default\s+finish-report\s+1\s+0\s+2\s+0\s+0$/m);
      expect(result.stdout).toMatch(/^mail\s+send-email\s+0\s+0\s+0\s+1\s+0$/m);
      expect(result.stdout).toMatch(/^ {2}default: 1 due, oldest waiting (8\d|9\d|1\d\d)\.\d s$/m);
      expect(result.stdout).toContain("Cleaner: none leads.");
    });

    it("--json prints the same as one object, and names the leading cleaner's session while one leads", async () => {
      const result = await cli(["status", "--json"]);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(report.tasks).toContainEqual({ queue: "mail", name: "send-email", pending: 0, running: 0, succeeded: 0, dead: 1, cancelled: 0 });
      expect(report.due).toEqual([{ queue: "default", due: 1, oldestDueSeconds: expect.any(Number) }]);
      expect(report.cleaner).toEqual({ leading: false, pid: null, pidOf: null, host: null, since: null });
      const lock = bed.store.leaderLock(bed.store.defaultLockKey(), electionTiming(1000), silentLogger);
      try {
        expect(await lock.check()).toBe(true);
        const leading = JSON.parse((await cli(["status", "--json"])).stdout) as Record<string, unknown>;
        expect(leading.cleaner).toMatchObject({ leading: true, pid: (await bed.store.leaderHolder(bed.store.defaultLockKey()))!.pid });
      } finally {
        await lock.release();
      }
    });
  });

  describe("retry", () => {
    it("puts a dead task back to pending and wakes it (0); a missing or pending task exits 3", async () => {
      const [dead, pending] = await bed.rows.insert([{ name: "finish-report", status: "dead", attempts: 5, finishedAgoMs: 1000 }, { name: "finish-report" }]);
      expect(await cli(["retry", dead!])).toMatchObject({ code: 0, stdout: `Retried task ${dead}: pending again, woken now.\n` });
      expect(await bed.store.findTask(dead!)).toMatchObject({ status: "pending", attempts: 0, finishedAt: null });
      await bed.counter.waitFor(() => bed.counter.counts.get(dead!) === 1, "the retried task's wake-up");
      const [absent, wrongState] = await Promise.all([cli(["retry", missing]), cli(["retry", pending!])]);
      expect(absent).toMatchObject({ code: 3, stderr: `task-runner retry: task ${missing} not found in "tasks".\n` });
      expect(wrongState).toMatchObject({
        code: 3,
        stderr: `task-runner retry: task ${pending} (finish-report) is pending; only dead or cancelled tasks can be retried.\n`,
      });
    });

    it("--dead --name retries every dead task of that name and no other", async () => {
      await bed.rows.exec("DELETE FROM tasks WHERE status = 'dead'");
      const [a, b, other] = await bed.rows.insert([
        { name: "send-email", queue: "mail", payload: { to: "a" }, status: "dead", finishedAgoMs: 1000 },
        { name: "send-email", queue: "mail", payload: { to: "b" }, status: "dead", finishedAgoMs: 1000 },
        { name: "finish-report", status: "dead", finishedAgoMs: 1000 },
      ]);
      expect(await cli(["retry", "--dead", "--name", "send-email"])).toMatchObject({
        code: 0,
        stdout: "Retried 2 dead tasks of send-email: pending again, woken now.\n",
      });
      expect((await bed.store.findTask(other!))?.status).toBe("dead");
      await bed.counter.waitFor(() => bed.counter.counts.get(a!) === 1 && bed.counter.counts.get(b!) === 1, "both wake-ups");
    });
  });

  describe("pause and resume", () => {
    it("pauses a queue (its row says so in status), resumes it and wakes its due tasks; twice says so; a bad name exits 2", { timeout: 120_000 }, async () => {
      await bed.rows.exec("DELETE FROM tasks");
      expect(await cli(["pause", "mail"])).toMatchObject({
        code: 0,
        stdout: "Paused queue mail: its tasks wait; running ones finish. Resume with: task-runner resume mail\n",
      });
      expect((await bed.store.listQueues()).map((queue) => [queue.queue, queue.pausedAt instanceof Date])).toEqual([["mail", true]]);
      const [twice, status] = await Promise.all([cli(["pause", "mail"]), cli(["status"])]);
      expect(twice).toMatchObject({ code: 0, stdout: "Queue mail was paused already.\n" });
      expect(status.stdout).toMatch(/^Queue controls:\n {2}mail: PAUSED since \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
      const json = JSON.parse((await cli(["status", "--json"])).stdout) as { queues: unknown[] };
      expect(json.queues).toEqual([{ queue: "mail", paused: true, pausedSince: expect.any(String), concurrency: null, rateLimit: null, tasks: [] }]);
      const [waiting] = await bed.rows.insert([{ name: "send-email", queue: "mail", payload: { to: "a" }, publishedAgoMs: 1000 }]);
      expect(await bed.store.claimDue(10, { owner: "cli-test", leaseMs: 1000, names: ["send-email"], queues: ["mail"] })).toEqual([]);
      expect(await cli(["resume", "mail"])).toMatchObject({ code: 0, stdout: "Resumed queue mail: 1 due task, woken now.\n" });
      await bed.counter.waitFor(() => bed.counter.counts.get(waiting!) === 1, "the resumed queue's wake-up");
      const [again, bad] = await Promise.all([cli(["resume", "mail"]), cli(["pause", "bad queue!"])]);
      expect(again).toMatchObject({ code: 0, stdout: "Queue mail was not paused.\n" });
      expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/^task-runner pause: queue "bad queue!": /) });
      expect((await bed.store.listQueues()).map((queue) => queue.pausedAt)).toEqual([null]);
      await bed.rows.exec("DELETE FROM tasks");
    });
  });

  describe("limit", () => {
    it("shows, sets and lifts a queue's limits in the database, where claims that do not count leave its tasks; bad values exit 2", { timeout: 120_000 }, async () => {
      await bed.rows.exec("DELETE FROM tasks");
      expect(await cli(["limit", "reports"])).toMatchObject({ code: 0, stdout: "Queue reports: no limits.\n" });
      expect(await cli(["limit", "reports", "--concurrency", "2", "--rate", "10/60000"])).toMatchObject({
        code: 0,
        stdout: "Queue reports: at most 2 running at once, at most 10 starts per 60000 ms (was: no limits).\n",
      });
      expect((await bed.store.listQueues()).find((row) => row.queue === "reports")).toMatchObject({ concurrency: 2, rateLimit: { starts: 10, perMs: 60_000 } });
      // A claim that does not count the queue (no limits in its filter) leaves its due task pending.
      const [waiting] = await bed.rows.insert([{ name: "send-email", queue: "reports", payload: { to: "a" } }]);
      const plain = { owner: "cli-test", leaseMs: 1000, names: ["send-email"], queues: ["reports"] };
      expect(await bed.store.claimDue(10, plain)).toEqual([]);
      expect(await bed.store.claimByIds([waiting!], plain)).toEqual([{ id: waiting, claimed: null, reason: "limited", name: "send-email", queue: "reports" }]);
      expect(await cli(["limit", "reports", "--rate", "none"])).toMatchObject({
        code: 0,
        stdout: "Queue reports: at most 2 running at once (was: at most 2 running at once, at most 10 starts per 60000 ms).\n",
      });
      expect(await cli(["limit", "reports", "--none"])).toMatchObject({ code: 0, stdout: "Queue reports: no limits (was: at most 2 running at once).\n" });
      expect((await bed.store.claimDue(10, plain)).map((task) => task.id)).toEqual([waiting]);
      const [zero, rate, both] = await Promise.all([
        cli(["limit", "reports", "--concurrency", "0"]),
        cli(["limit", "reports", "--rate", "10"]),
        cli(["limit", "reports", "--none", "--concurrency", "3"]),
      ]);
      expect(zero).toMatchObject({
        code: 2,
        stderr: 'task-runner limit: --concurrency must be an integer from 1 to 1000000, got "0" (e.g. --concurrency 5, or --concurrency none to lift it).\n',
      });
      expect(rate).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--rate must be STARTS/MS (e.g. --rate 100/60000 for 100 starts a minute) or none, got "10"'),
      });
      expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining("--none lifts every limit") });
      await bed.rows.exec("DELETE FROM tasks");
      await bed.rows.exec("DELETE FROM tasks_queues");
    });
  });

  describe("cancel and run", () => {
    it("cancels a pending task (0), then refuses to cancel it again or a missing one (3)", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", runAgoMs: -3_600_000 }]);
      expect(await cli(["cancel", id!])).toMatchObject({ code: 0, stdout: `Cancelled task ${id}.\n` });
      expect(await bed.store.findTask(id!)).toMatchObject({ status: "cancelled", finishedAt: expect.any(Date) });
      expect(await cli(["cancel", id!])).toMatchObject({
        code: 3,
        stderr: `task-runner cancel: task ${id} (finish-report) is cancelled; only pending tasks can be cancelled.\n`,
      });
      expect((await cli(["cancel", missing])).code).toBe(3);
    });

    it("run makes a delayed task due now by the database clock (an id in capitals names the same task) and wakes it", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", runAgoMs: -3_600_000 }]);
      expect(await cli(["run", id!.toUpperCase()])).toMatchObject({ code: 0, stdout: `Task ${id} is due now: woken now.\n` });
      expect((await bed.store.findTask(id!))!.runAt.getTime()).toBeLessThanOrEqual((await bed.store.now()).getTime());
      await bed.counter.waitFor(() => bed.counter.counts.get(id!) === 1, "the wake-up");
    });
  });
});

describe("on PostgreSQL", () => {
  const dialect = CLI_DIALECTS[0]!;
  const bed = cliBed(dialect);
  const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { cwd: dialect.app, env: { ...bed.env, ...env } });
  const sql = () => new pg.Client({ connectionString: bed.url });

  describe("show", () => {
    it("prints a task that succeeded after failures: no current error, who finished it, and its error history", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", status: "succeeded", attempts: 3, finishedAgoMs: 1000 }]);
      const history = [
        { attempt: 1, error: "Error: smtp down\n    at send (mail.ts:1)", at: "2026-11-24T01:00:00.000Z" },
        { attempt: 2, error: "Error: smtp still down", at: "2026-11-24T01:00:05.000Z" },
      ];
      const client = sql();
      await client.connect();
      try {
        await client.query("UPDATE tasks SET errors = $2::jsonb, finished_by = 'host:42:w1', last_error = NULL WHERE id = $1::uuid", [id, JSON.stringify(history)]);
      } finally {
        await client.end();
      }
      const result = await cli(["show", id!]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(new RegExp(`^Task ${id} \\(finish-report\\) on queue "default": succeeded, attempt 3 of 5$`, "m"));
      expect(result.stdout).toContain("Last finished or failed by: host:42:w1\n");
      expect(result.stdout).toContain("Current error: none\n");
      expect(result.stdout).toContain(
        "Error history (2, oldest first):\n  attempt 1 · 2026-11-24T01:00:00.000Z\n    Error: smtp down\n        at send (mail.ts:1)\n" +
          "  attempt 2 · 2026-11-24T01:00:05.000Z\n    Error: smtp still down\n",
      );
      const json = await cli(["show", id!, "--json"]);
      expect(JSON.parse(json.stdout)).toMatchObject({ id, status: "succeeded", lastError: null, finishedBy: "host:42:w1", errors: history });
    });

    it("prints a workflow's steps in order: what each recorded, and the wait it is in", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", status: "pending" }]);
      const [task] = await bed.store.claimByIds([id!], { owner: "w1", leaseMs: 30_000, names: ["finish-report"], queues: ["default"] });
      const run = { taskId: id!, attempt: 1 };
      await bed.store.recordStep("w1", { ...run, seq: 1, name: "charge", kind: "run", resultJson: '{"chargeId":"c-1"}' });
      await bed.store.recordStep("w1", { ...run, seq: 2, name: "await shipment", kind: "wait", resultJson: null, until: { at: new Date("2031-01-02T03:04:05.000Z") } });
      expect(task?.claimed?.attempts).toBe(1);
      const result = await cli(["show", id!]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(
        /^Steps \(2, in order\):\n {2}1\. run "charge" · run 1 · \S+ · \{"chargeId":"c-1"\}\n {2}2\. wait "await shipment" · run 1 · \S+ · waiting for its event until 2031-01-02T03:04:05\.000Z\n/m,
      );
      const json = await cli(["show", id!, "--json"]);
      expect((JSON.parse(json.stdout) as { steps: unknown }).steps).toMatchObject([
        { seq: 1, name: "charge", kind: "run", state: "done", result: { chargeId: "c-1" } },
        { seq: 2, name: "await shipment", kind: "wait", state: "waiting", result: null, until: "2031-01-02T03:04:05.000Z" },
      ]);
    });

    it("prints a workflow's children with their statuses, and a child's parent; cancel takes the pending children along", async () => {
      const [parent, packed, broken, waiting] = await bed.rows.insert([
        { name: "finish-report", status: "pending" },
        { name: "finish-report", status: "succeeded", createdAgoMs: 3000, finishedAgoMs: 1000 },
        { name: "finish-report", status: "pending", createdAgoMs: 2000 },
        { name: "finish-report", status: "pending", createdAgoMs: 1000 },
      ]);
      await bed.store.linkChildren(parent!, [packed!, broken!, waiting!]);
      const [claimed] = await bed.store.claimByIds([broken!], { owner: "w1", leaseMs: 30_000, names: ["finish-report"], queues: ["default"] });
      await bed.store.fail("w1", [
        { id: broken!, attempt: claimed!.claimed!.attempts, error: "Error: out of stock\n    at pack (pack.ts:1)", delayMs: 0, finalReason: "unrecoverable" },
      ]);
      const result = await cli(["show", parent!]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toContain(
        `Children (3, oldest first):\n  ${packed} (finish-report): succeeded\n  ${broken} (finish-report): dead · Error: out of stock\n  ${waiting} (finish-report): pending\n`,
      );
      expect((await cli(["show", waiting!])).stdout).toContain(`Started by workflow: ${parent}\n`);
      const json = JSON.parse((await cli(["show", parent!, "--json"])).stdout) as { children: unknown };
      expect(json.children).toMatchObject([
        { id: packed, status: "succeeded" },
        { id: broken, status: "dead", result: null, lastError: expect.stringContaining("out of stock") },
        { id: waiting, status: "pending" },
      ]);
      expect(await cli(["cancel", parent!])).toMatchObject({ code: 0, stdout: `Cancelled task ${parent} and 1 pending task it started (its children and theirs).\n` });
      expect((await bed.store.findTask(waiting!))!.status).toBe("cancelled");
    });

    it("exits 3 for a task that does not exist", async () => {
      expect(await cli(["show", missing])).toMatchObject({
        code: 3,
        stderr:
          `task-runner show: task ${missing} not found in "tasks". Its id was made at 2024-12-13T16:33:14.752Z. A task's row is deleted when it ` +
          "succeeds with nothing to keep under deleteOnSuccess, and once finished for longer than the cleaner's retentionMs; else the id " +
          "belongs to another table or database.\n",
      });
    });
  });

  describe("wake-ups without a broker", () => {
    it("the task is woken through NOTIFY and marked published", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
      const listener = sql();
      await listener.connect();
      const payloads: string[] = [];
      listener.on("notification", (message) => payloads.push(message.payload ?? ""));
      await listener.query(`LISTEN "${bed.prefix}.wakeups"`);
      try {
        const result = await cli(["retry", id!], { AMQP_URL: undefined });
        expect(result).toMatchObject({ code: 0, stdout: `Retried task ${id}: pending again, woken now.\n` });
        expect(payloads).toEqual([`default:${id}`]);
        expect((await bed.store.findTask(id!))?.publishedAt).toBeInstanceOf(Date);
      } finally {
        await listener.end();
      }
    });

    it('with wakeups: "polling" the action still happens and says a worker\'s next poll picks the task up', async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
      const result = await cli(["retry", id!], { AMQP_URL: undefined, PTQ_WAKEUPS: "polling" });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `Retried task ${id}: pending again, no wake-up to send (the workers poll): a running worker picks it up at its next poll, within 1000 ms (pollIntervalMs).\n`,
      );
      expect((await bed.store.findTask(id!))?.status).toBe("pending");
    });
  });

  describe("database URL precedence and failures", () => {
    it("the config's unreachable URL is overridden by DATABASE_URL, which --database-url overrides", async () => {
      const fromFile = await cli(["status"], { DATABASE_URL: undefined });
      expect(fromFile.code).toBe(1);
      expect(fromFile.stderr).toContain("cannot use the database at postgresql://nobody@127.0.0.1:1/not-this-one: connect ECONNREFUSED");
      const name = new URL(bed.url).pathname.slice(1);
      const wrongFlag = await cli(["status", "--database-url", `${bed.url}_nope`]);
      expect(wrongFlag.code).toBe(1);
      expect(wrongFlag.stderr).toContain(`database "${name}_nope" does not exist; that database does not exist: check the database name in --database-url`);
    });

    it("wrong credentials exit 1 with the password hidden, no stack, and change nothing", async () => {
      const [id] = await bed.rows.insert([{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
      const url = new URL(bed.url);
      url.username = "no_such_user";
      url.password = "s3cret";
      const result = await cli(["retry", id!], { DATABASE_URL: url.toString() });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^task-runner retry: cannot use the database at postgresql:\/\/no_such_user:\*\*\*@/);
      expect(result.stderr).toContain("the credentials were refused: check the user and password in the environment variable DATABASE_URL");
      expect(result.stderr).not.toContain("s3cret");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect((await bed.store.findTask(id!))?.status).toBe("dead");
    });
  });
});

describe("on MySQL", () => {
  const dialect = CLI_DIALECTS[1]!;
  const bed = cliBed(dialect);
  const runs: CliRun[] = [];

  afterAll(async () => {
    for (const run of runs) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
    await Promise.all(runs.map((run) => run.exited));
  });

  it("start runs a task end to end, wakes a delayed one through its cleaner, and exits 0 on SIGTERM", async () => {
    const own = uniquePrefix();
    const run = startCli(["start"], { cwd: dialect.app, env: { ...bed.env, PTQ_PREFIX: own } });
    runs.push(run);
    const logged = (message: string, fields: Record<string, unknown> = {}) =>
      run.logs().some((line) => line.message === message && Object.entries(fields).every(([key, value]) => line[key] === value));
    const prisma = testMysqlPrisma(bed.url).$extends(taskQueue({ tasks, amqpUrl: inject("amqpUrl"), amqpPrefix: own, logger: silentLogger }));
    try {
      await waitUntil(() => logged("worker started") && logged("cleaner is leading"), "the runner to start", 30_000);
      const report = await prisma.report.create({ data: {} });
      const later = await prisma.report.create({ data: {} });
      const now = await prisma.task.enqueue("finish-report", { reportId: report.id });
      const delayed = await prisma.task.enqueue("finish-report", { reportId: later.id }, { delayMs: 1000 });
      await waitUntil(async () => (await bed.store.findTask(now.id))?.status === "succeeded", "the task to succeed", 20_000);
      await waitUntil(async () => (await bed.store.findTask(delayed.id))?.status === "succeeded", "the delayed task to succeed", 20_000);
      expect(await prisma.report.findUnique({ where: { id: report.id } })).toMatchObject({ status: "done", result: "attempt 1" });
      expect(await bed.store.findTask(now.id)).toMatchObject({ attempts: 1, result: { reportId: report.id } });
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

  it("a missing database exits 1 with the server's words and the fix; the config's dead-end URL is overridden", async () => {
    const name = new URL(bed.url).pathname.slice(1);
    const url = new URL(bed.url);
    url.pathname = `/${name}_nope`;
    const result = await runCli(["status"], { cwd: dialect.app, env: { ...bed.env, DATABASE_URL: url.toString() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Unknown database '${name}_nope'; that database does not exist: check the database name in the environment variable DATABASE_URL`);
    const fromFile = await runCli(["status"], { cwd: dialect.app, env: { ...bed.env, DATABASE_URL: undefined } });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain("cannot use the database at mysql://nobody@127.0.0.1:1/not_this_one");
    expect(fromFile.stderr).toContain("is MySQL running and reachable there? Check the host and port in databaseUrl in ./task-runner.config.ts.");
  });
});
