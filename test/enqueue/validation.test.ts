// Bad input at enqueue: each case throws a typed error that names the task, the field and the fix, and writes nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { z } from "zod";
import {
  defineTasks,
  TaskDefinitionError,
  TaskOptionsError,
  TaskPayloadError,
  TaskPayloadTooLargeError,
  UnknownTaskError,
  TaskQueueConfigError,
  taskQueue,
  silentLogger,
} from "../../src/index.js";
import { type TestDatabase } from "../support/database.js";
import { uniquePrefix } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { extend, setupDatabase, tasks, type Extended } from "./fixtures.js";

let db: TestDatabase;
let prisma: Extended;
let sql: pg.Pool;

beforeAll(async () => {
  db = await setupDatabase();
  prisma = extend(db.url, uniquePrefix());
  sql = new pg.Pool({ connectionString: db.url, max: 1 });
});

afterAll(async () => {
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await sql?.end();
  await db?.drop();
});

async function taskCount(): Promise<number> {
  return (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks")).rows[0]!.n;
}

/** Runs `enqueue` inside a transaction that also writes a report; expects `error` and no rows at all afterwards. */
/** The transaction client's enqueue methods without their payload types: these cases pass what the types forbid. */
interface LooseTx {
  task: { enqueue(name: string, payload: unknown, options?: unknown): Promise<unknown>; enqueueMany(items: unknown[]): Promise<unknown> };
}

async function expectRejected(enqueue: (tx: LooseTx) => unknown, error: new (...args: never[]) => Error, message: RegExp) {
  const before = await taskCount();
  const reportId = crypto.randomUUID();
  const attempt = prisma.$transaction(async (tx) => {
    await tx.report.create({ data: { id: reportId } });
    await enqueue(tx as unknown as LooseTx);
  });
  await expect(attempt).rejects.toThrow(message);
  await attempt.catch((thrown) => expect(thrown).toBeInstanceOf(error));
  expect(await taskCount()).toBe(before);
  expect((await sql.query("SELECT 1 FROM reports WHERE id = $1", [reportId])).rowCount).toBe(0);
}

describe("payload", () => {
  it("rejects a payload that fails the schema, naming task, field and fix", async () => {
    await expectRejected(
      (tx) => tx.task.enqueue("send-report", { reportId: 42 }),
      TaskPayloadError,
      /Invalid payload for task "send-report": reportId: .*expected string.*Fix the payload/,
    );
  });

  it("rejects a value that does not survive JSON (a Date where a string is expected)", async () => {
    await expectRejected(
      (tx) => tx.task.enqueue("resize-image", { url: "https://example.com/x.png", width: 10, extra: 1n }),
      TaskPayloadError,
      /not serialisable as JSON/,
    );
  });

  it("rejects a payload over the size limit with its size and the limit", async () => {
    const big = "x".repeat(300 * 1024);
    const error: unknown = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: big })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskPayloadTooLargeError);
    expect((error as Error).message).toMatch(/Payload for task "send-report" is 307215 bytes, over the limit of 262144 bytes/);
    expect((error as Error).message).toMatch(/raise maxPayloadBytes/);
    expect(await taskCount()).toBe(0);
  });
});

describe("task name", () => {
  it("rejects an unknown name and lists the known ones", async () => {
    await expectRejected(
      (tx) => tx.task.enqueue("send-reprot", { reportId: "1" }),
      UnknownTaskError,
      /Unknown task "send-reprot". Known tasks: "send-report", "resize-image". Add it to defineTasks\(\) or fix the name./,
    );
  });
});

describe("options", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["negative delay", { delayMs: -5 }, /Invalid option "delayMs" for task "send-report": must be a number of milliseconds from 0/],
    ["NaN delay", { delayMs: Number.NaN }, /"delayMs".*got null/],
    ["non-integer priority", { priority: 1.5 }, /Invalid option "priority" for task "send-report": must be an integer .* got 1.5/],
    ["zero maxAttempts", { maxAttempts: 0 }, /"maxAttempts".*must be an integer from 1/],
    ["runAt in the past", { runAt: new Date(Date.now() - 3_600_000) }, /"runAt".*s in the past \(tolerance 60 s\)/],
    ["runAt not a Date", { runAt: "tomorrow" }, /"runAt".*must be a valid Date, got "tomorrow"/],
    ["both runAt and delayMs", { runAt: new Date(), delayMs: 5 }, /give either runAt or delayMs, not both/],
    ["empty key", { key: "" }, /"key".*non-empty string/],
    ["queue with AMQP metacharacters", { queue: "a#b*" }, /"queue".*"a#b\*" is not a queue name/],
    ["typo in an option name", { delay: 100 }, /Invalid option "delay".*unknown option. Use one of: delayMs, runAt/],
  ];
  for (const [title, options, message] of cases) {
    it(`rejects ${title}`, async () => {
      await expectRejected((tx) => tx.task.enqueue("send-report", { reportId: "1" }, options), TaskOptionsError, message);
    });
  }

  it("accepts runAt slightly in the past and makes the task due now", async () => {
    const task = await prisma.task.enqueue("send-report", { reportId: "1" }, { runAt: new Date(Date.now() - 5_000) });
    expect(task.created).toBe(true);
    await sql.query("DELETE FROM tasks WHERE id = $1", [task.id]);
  });
});

describe("enqueueMany", () => {
  it("writes nothing when one item of many is invalid, and names its index", async () => {
    await expectRejected(
      (tx) =>
        tx.task.enqueueMany([
          { name: "send-report", payload: { reportId: "ok" } },
          { name: "resize-image", payload: { url: "not a url", width: 3 } },
        ]),
      TaskPayloadError,
      /Invalid payload for task "resize-image": url:/,
    );
    await expectRejected((tx) => tx.task.enqueueMany([null]), TaskOptionsError, /items\[0\]/);
  });
});

describe("payload schema", () => {
  it("names the fix when a task's payload schema is asynchronous, and writes nothing", async () => {
    const asyncTasks = defineTasks({
      "check-stock": { payload: z.object({ sku: z.string() }).refine(async (value) => value.sku.length > 0, "sku must not be empty") },
    });
    const client = testPrisma(db.url).$extends(taskQueue({ tasks: asyncTasks, logger: silentLogger }));
    try {
      const before = await taskCount();
      const attempt = client.$transaction(async (tx) => {
        await tx.task.enqueue("check-stock", { sku: "A-1" });
      });
      await expect(attempt).rejects.toThrow(
        /Invalid definition of task "check-stock": its payload schema is asynchronous .* Make the schema synchronous and do asynchronous checks in the handler\./,
      );
      await attempt.catch((thrown) => expect(thrown).toBeInstanceOf(TaskDefinitionError));
      expect(await taskCount()).toBe(before);
    } finally {
      await client.$taskQueue.close();
      await client.$disconnect();
    }
  });
});

describe("taskQueue() options", () => {
  it("rejects a table name that is not an identifier", () => {
    expect(() => taskQueue({ tasks, table: 'tasks"; DROP TABLE x; --' })).toThrow(TaskQueueConfigError);
    expect(() => taskQueue({ tasks, table: "tasks; drop" })).toThrow(/Invalid option "table": "tasks; drop" is not a plain identifier/);
  });

  it("names the fix when the client has no such model or maps it elsewhere", () => {
    const client = testPrisma(db.url);
    expect(() => client.$extends(taskQueue({ tasks, model: "Job", logger: silentLogger }))).toThrow(/no model "Job".*taskQueue\(\{ model/);
    expect(() => client.$extends(taskQueue({ tasks, table: "jobs", logger: silentLogger }))).toThrow(
      /model "Task" maps to table "tasks" but taskQueue\(\) was given table "jobs"/,
    );
  });

  it("rejects a bad maxPayloadBytes and amqpPrefix", () => {
    expect(() => taskQueue({ tasks, maxPayloadBytes: -1 })).toThrow(/"maxPayloadBytes": must be a positive integer, got -1/);
    expect(() => taskQueue({ tasks, amqpPrefix: "bad prefix!" })).toThrow(/"amqpPrefix"/);
  });
});
