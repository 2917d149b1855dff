// Operator commands as a subprocess against the real database and broker: status (table and --json), retry (one,
// --dead, --name), cancel and run, with exit codes 0 and 3; the environment and flags override the config's URL;
// wrong credentials exit 1 with a clear message and change nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { inject } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { insertRows, rowOf } from "../cleaner/rows.js";
import { fixtureDir, runCli } from "./cli-process.js";

let db: TestDatabase;
let sql: pg.Pool;
let prefix: string;
let counter: WakeupCounter;
const app = fixtureDir("cli-app");
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default", "mail"]);
  env = { DATABASE_URL: db.url, AMQP_URL: inject("amqpUrl"), PTQ_PREFIX: prefix };
});

afterAll(async () => {
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

const missing = "0193c0de-0000-7000-8000-000000000000";

describe("status", () => {
  it("prints counts by queue, name and status, the oldest due task, and that no cleaner leads", async () => {
    await insertRows(sql, [
      { name: "finish-report", createdAgoMs: 90_000, publishedAgoMs: 80_000 },
      { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
      { name: "finish-report", status: "succeeded", finishedAgoMs: 1000 },
      { name: "send-email", queue: "mail", status: "dead", finishedAgoMs: 1000 },
    ]);
    const result = await runCli(["status"], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^QUEUE\s+TASK\s+PENDING\s+RUNNING\s+SUCCEEDED\s+DEAD\s+CANCELLED$/m);
    expect(result.stdout).toMatch(/^default\s+finish-report\s+1\s+0\s+2\s+0\s+0$/m);
    expect(result.stdout).toMatch(/^mail\s+send-email\s+0\s+0\s+0\s+1\s+0$/m);
    expect(result.stdout).toMatch(/^ {2}default: 1 due, oldest waiting (8\d|9\d|1\d\d)\.\d s$/m);
    expect(result.stdout).toContain("Cleaner: none leads.");
  });

  it("--json prints the same as one object", async () => {
    const result = await runCli(["status", "--json"], { cwd: app, env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.tasks).toContainEqual({ queue: "mail", name: "send-email", pending: 0, running: 0, succeeded: 0, dead: 1, cancelled: 0 });
    expect(report.due).toEqual([{ queue: "default", due: 1, oldestDueSeconds: expect.any(Number) }]);
    expect(report.cleaner).toEqual({ leading: false, pid: null, pidOf: null, host: null, since: null });
  });
});

describe("show", () => {
  it("prints a task that succeeded after failures: no current error, who finished it, and its error history", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", status: "succeeded", attempts: 3, finishedAgoMs: 1000 }]);
    const history = [
      { attempt: 1, error: "Error: smtp down\n    at send (mail.ts:1)", at: "2026-11-24T01:00:00.000Z" },
      { attempt: 2, error: "Error: smtp still down", at: "2026-11-24T01:00:05.000Z" },
    ];
    await sql.query("UPDATE tasks SET errors = $2::jsonb, finished_by = 'host:42:w1', last_error = NULL WHERE id = $1::uuid", [id, JSON.stringify(history)]);
    const result = await runCli(["show", id!], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(new RegExp(`^Task ${id} \\(finish-report\\) on queue "default": succeeded, attempt 3 of 5$`, "m"));
    expect(result.stdout).toContain("Last finished or failed by: host:42:w1\n");
    expect(result.stdout).toContain("Current error: none\n");
    expect(result.stdout).toContain(
      "Error history (2, oldest first):\n  attempt 1 · 2026-11-24T01:00:00.000Z\n    Error: smtp down\n        at send (mail.ts:1)\n" +
        "  attempt 2 · 2026-11-24T01:00:05.000Z\n    Error: smtp still down\n",
    );
    const json = await runCli(["show", id!, "--json"], { cwd: app, env });
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: "succeeded", lastError: null, finishedBy: "host:42:w1", errors: history });
  });

  it("exits 3 for a task that does not exist", async () => {
    const result = await runCli(["show", missing], { cwd: app, env });
    expect(result).toMatchObject({ code: 3, stderr: `task-runner show: task ${missing} not found in "tasks".\n` });
  });
});

describe("retry", () => {
  it("puts a dead task back to pending, wakes it, and exits 0", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", status: "dead", attempts: 5, finishedAgoMs: 1000 }]);
    const result = await runCli(["retry", id!], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stdout: `Retried task ${id}: pending again, woken now.\n` });
    expect(await rowOf(sql, id!)).toMatchObject({ status: "pending", attempts: 0, finished_at: null });
    await counter.waitFor(() => counter.counts.get(id!) === 1, "the retried task's wake-up");
  });

  it("exits 3 for a task that does not exist or is not dead or cancelled", async () => {
    const [pending] = await insertRows(sql, [{ name: "finish-report" }]);
    const [absent, wrongState] = await Promise.all([runCli(["retry", missing], { cwd: app, env }), runCli(["retry", pending!], { cwd: app, env })]);
    expect(absent).toMatchObject({ code: 3, stderr: `task-runner retry: task ${missing} not found in "tasks".\n` });
    expect(wrongState).toMatchObject({
      code: 3,
      stderr: `task-runner retry: task ${pending} (finish-report) is pending; only dead or cancelled tasks can be retried.\n`,
    });
  });

  it("--dead --name retries every dead task of that name and no other", async () => {
    const [a, b, other] = await insertRows(sql, [
      { name: "send-email", queue: "mail", payload: { to: "a" }, status: "dead", finishedAgoMs: 1000 },
      { name: "send-email", queue: "mail", payload: { to: "b" }, status: "dead", finishedAgoMs: 1000 },
      { name: "finish-report", status: "dead", finishedAgoMs: 1000 },
    ]);
    await sql.query("UPDATE tasks SET status = 'succeeded' WHERE status = 'dead' AND id <> ALL($1::uuid[])", [[a, b, other]]);
    const result = await runCli(["retry", "--dead", "--name", "send-email"], { cwd: app, env });
    expect(result).toMatchObject({ code: 0, stdout: "Retried 2 dead tasks of send-email: pending again, woken now.\n" });
    expect((await rowOf(sql, other!))?.status).toBe("dead");
    await counter.waitFor(() => counter.counts.get(a!) === 1 && counter.counts.get(b!) === 1, "both wake-ups");
  });
});

describe("cancel and run", () => {
  it("cancels a pending task (0), then refuses to cancel it again (3)", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", runAgoMs: -3_600_000 }]);
    expect(await runCli(["cancel", id!], { cwd: app, env })).toMatchObject({ code: 0, stdout: `Cancelled task ${id}.\n` });
    expect((await rowOf(sql, id!))?.status).toBe("cancelled");
    expect(await runCli(["cancel", id!], { cwd: app, env })).toMatchObject({
      code: 3,
      stderr: `task-runner cancel: task ${id} (finish-report) is cancelled; only pending tasks can be cancelled.\n`,
    });
    expect((await runCli(["cancel", missing], { cwd: app, env })).code).toBe(3);
  });

  it("run makes a delayed task due now and wakes it", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", runAgoMs: -3_600_000 }]);
    expect(await runCli(["run", id!], { cwd: app, env })).toMatchObject({ code: 0, stdout: `Task ${id} is due now: woken now.\n` });
    expect((await rowOf(sql, id!))?.run_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    await counter.waitFor(() => counter.counts.get(id!) === 1, "the wake-up");
  });

  it("without a broker on PostgreSQL the task is woken through NOTIFY and marked published", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const payloads: string[] = [];
    listener.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listener.query(`LISTEN "${prefix}.wakeups"`);
    try {
      const result = await runCli(["retry", id!], { cwd: app, env: { ...env, AMQP_URL: undefined } });
      expect(result).toMatchObject({ code: 0, stdout: `Retried task ${id}: pending again, woken now.\n` });
      expect(payloads).toEqual([`default:${id}`]);
      expect((await rowOf(sql, id!))?.published_at).toBeInstanceOf(Date);
    } finally {
      await listener.end();
    }
  });

  it("with wakeups: \"polling\" the action still happens and says a worker's next poll picks the task up", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
    const result = await runCli(["retry", id!], { cwd: app, env: { ...env, AMQP_URL: undefined, PTQ_WAKEUPS: "polling" } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Retried task ${id}: pending again, no wake-up to send (the workers poll): a running worker picks it up at its next poll, within 1000 ms (pollIntervalMs).\n`,
    );
    expect((await rowOf(sql, id!))?.status).toBe("pending");
  });
});

describe("database URL precedence and failures", () => {
  it("the config's unreachable URL is overridden by DATABASE_URL, which --database-url overrides", async () => {
    const fromFile = await runCli(["status"], { cwd: app, env: { ...env, DATABASE_URL: undefined } });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain("cannot use the database at postgresql://nobody@127.0.0.1:1/not-this-one: connect ECONNREFUSED");
    const wrongFlag = await runCli(["status", "--database-url", `${db.url}_nope`], { cwd: app, env });
    expect(wrongFlag.code).toBe(1);
    expect(wrongFlag.stderr).toContain(`database "${db.name}_nope" does not exist; that database does not exist: check the database name in --database-url`);
  });

  it("wrong credentials exit 1 with the password hidden, no stack, and change nothing", async () => {
    const [id] = await insertRows(sql, [{ name: "finish-report", status: "dead", finishedAgoMs: 1000 }]);
    const url = new URL(db.url);
    url.username = "no_such_user";
    url.password = "s3cret";
    const result = await runCli(["retry", id!], { cwd: app, env: { ...env, DATABASE_URL: url.toString() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^task-runner retry: cannot use the database at postgresql:\/\/no_such_user:\*\*\*@/);
    expect(result.stderr).toContain("the credentials were refused: check the user and password in the environment variable DATABASE_URL");
    expect(result.stderr).not.toContain("s3cret");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect((await rowOf(sql, id!))?.status).toBe("dead");
  });
});
