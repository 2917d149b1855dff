// taskQueue({ after }): a commit that enqueued due tasks hands `after` (Next.js's, here a stand-in that keeps the
// callbacks until "the response is sent") one callback that runs them with the real claim and outcome; a rollback hands
// nothing; a transactional task runs in a transaction of the client that enqueued it; a task too long for the budget and
// a delayed one are left for the cron route or workers.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import type { testPrisma } from "../support/prisma.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "../worker/harness.js";

const ran: string[] = [];
const tasks = defineTasks<PrismaClient>()({
  mail: { payload: z.object({ to: z.string() }), timeoutMs: 5_000, handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
  report: { payload: z.object({}), timeoutMs: 120_000, handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
  "sync-account": {
    payload: z.object({ account: z.string() }),
    timeoutMs: 5_000,
    concurrency: { limit: 1, key: ({ account }) => account },
    handler: async (_payload, ctx) => void ran.push(ctx.task.id),
  },
  "write-report": {
    payload: z.object({ reportId: z.string().uuid(), fail: z.boolean() }),
    timeoutMs: 5_000,
    transactional: true,
    handler: async ({ reportId, fail }, ctx) => {
      ran.push(ctx.task.id);
      await ctx.tx.report.create({ data: { id: reportId, status: "done" } });
      await ctx.tx.task.enqueue("mail", { to: `${reportId}@example.com` }, { delayMs: 3_600_000 });
      if (fail) throw new Error("the report failed after its writes");
    },
  },
});

describe.each(WORKER_DIALECTS)("runs committed tasks after the response ($name)", (dialect) => {
  let bed: WorkerTestBed;
  const callbacks: Array<() => Promise<void>> = [];
  let prisma: ReturnType<typeof makeClient>;
  function makeClient(url: string) {
    const base = dialect.prismaClient(url) as unknown as ReturnType<typeof testPrisma>;
    return base.$extends(taskQueue({ tasks, logger: silentLogger, after: (callback) => void callbacks.push(callback), afterBudgetMs: 30_000 }));
  }
  /** What Next.js does once the response is sent: runs what after() was given. */
  async function responseSent(): Promise<void> {
    for (const callback of callbacks.splice(0)) await callback();
  }

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = makeClient(bed.url);
  });
  afterAll(async () => {
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await bed?.close();
  });

  it("runs the tasks a committed transaction enqueued once the response is sent; a rollback runs nothing", async () => {
    ran.length = 0;
    const { a, b } = await prisma.$transaction(async (tx) => ({
      a: await tx.task.enqueue("mail", { to: "a@example.com" }),
      b: await tx.task.enqueue("mail", { to: "b@example.com" }),
    }));
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.task.enqueue("mail", { to: "never@example.com" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(callbacks).toHaveLength(1);
    expect(ran).toEqual([]); // nothing before the response
    await responseSent();
    expect(ran.sort()).toEqual([a.id, b.id].sort());
    for (const id of [a.id, b.id]) expect(await bed.row(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await bed.countStatus("pending")).toBe(0);
  });

  it("runs a transactional task in a transaction of the enqueuing client: its writes commit with its success, or roll back", async () => {
    ran.length = 0;
    const done = crypto.randomUUID();
    const failed = crypto.randomUUID();
    const ok = await prisma.task.enqueue("write-report", { reportId: done, fail: false });
    const bad = await prisma.task.enqueue("write-report", { reportId: failed, fail: true }, { maxAttempts: 2 });
    await responseSent();
    expect(ran.sort()).toEqual([ok.id, bad.id].sort());
    expect(await bed.row(ok.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await prisma.report.count({ where: { id: done } })).toBe(1);
    // The follow-up of the run that succeeded, and none of the one that failed.
    expect(await prisma.task.count({ where: { name: "mail", status: "pending" } })).toBe(1);
    // The failed run's writes rolled back with it; its retry waits for the cron route.
    expect(await bed.row(bad.id)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await prisma.report.count({ where: { id: failed } })).toBe(0);
  });

  it("leaves a task limited per key to the cron route or a worker, whose claims count its key's runs", async () => {
    ran.length = 0;
    const { mail, first, second } = await prisma.$transaction(async (tx) => ({
      mail: await tx.task.enqueue("mail", { to: "c@example.com" }),
      first: await tx.task.enqueue("sync-account", { account: "acme" }),
      second: await tx.task.enqueue("sync-account", { account: "acme" }),
    }));
    await responseSent();
    expect(ran).toEqual([mail.id]);
    for (const id of [first.id, second.id]) expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 0 });
  });

  it("leaves a task whose timeout does not fit the budget, and a delayed one, pending for the cron route or a worker", async () => {
    ran.length = 0;
    const long = await prisma.task.enqueue("report", {});
    const later = await prisma.task.enqueue("mail", { to: "later@example.com" }, { delayMs: 3_600_000 });
    await responseSent();
    expect(ran).toEqual([]);
    expect(await bed.row(long.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(await bed.row(later.id)).toMatchObject({ status: "pending", attempts: 0 });
  });

  it("a commit whose after() throws (outside a request) still resolves; its tasks wait for the cron route or a worker", async () => {
    const logger = recordingLogger();
    const base = dialect.prismaClient(bed.url) as unknown as ReturnType<typeof testPrisma>;
    const refusing = base.$extends(
      taskQueue({
        tasks,
        logger,
        after: () => {
          throw new Error("`after` was called outside a request scope");
        },
      }),
    );
    try {
      const task = await refusing.task.enqueue("mail", { to: "outside@example.com" });
      expect(await bed.row(task.id)).toMatchObject({ status: "pending", attempts: 0 });
      expect(logger.find("after() did not take the committed tasks (outside a request?); the cron route or a worker runs them")).toHaveLength(1);
    } finally {
      await refusing.$taskQueue.close();
      await refusing.$disconnect();
    }
  });

  it("refuses a bad after or budget, naming the fix", () => {
    expect(() => taskQueue({ tasks, after: "after" as never })).toThrow(/must be Next\.js's after function \(import \{ after \} from "next\/server"\), got "after"/);
    expect(() => taskQueue({ tasks, after: () => {}, afterBudgetMs: 10 })).toThrow(/afterBudgetMs.*from 1000 to 900000 ms, got 10/);
    expect(() => taskQueue({ tasks, afterBudgetMs: 5_000 })).toThrow(/applies with `after` only/);
  });
});
