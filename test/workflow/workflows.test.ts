// Durable workflows end to end, on every dialect and every wake-up transport: a step runs once and a later run replays
// its result; a transactional step's writes commit with its record; a sleep and a wait hand the task back to the queue
// without holding a worker; an event sent in the app's transaction reaches the wait if and only if that transaction
// commits, also when it was sent before the wait began; a replay that asks for other steps fails, saying so.

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createWorker, defineTasks, silentLogger, taskQueue, type Store, type Worker } from "../../src/index.js";
import { openStore } from "../../src/open-store.js";
import { uniquePrefix } from "../support/broker.js";
import type { testPrisma } from "../support/prisma.js";
import type { PrismaClient } from "../generated/client.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";
import { WORKFLOW_SETUPS as SETUPS } from "./workflow-setups.js";

/** How many times each (task id, step) ran its function, in this process. */
const ran = new Map<string, number>();
const count = (key: string) => ran.set(key, (ran.get(key) ?? 0) + 1);
/** When each sleeping task's run asked for its sleep, and when the step after it ran. */
const slept = new Map<string, { asked: number; woke?: number }>();

const tasks = defineTasks<PrismaClient>()({
  order: {
    payload: z.object({ reportId: z.string(), failOnce: z.boolean().default(false), sleepMs: z.number().default(0), waitMs: z.number().optional() }),
    backoff: { baseMs: 10, maxMs: 10 },
    handler: async ({ reportId, failOnce, sleepMs, waitMs }, ctx) => {
      const charge = await ctx.step.run("charge", (info) => {
        count(`${ctx.task.id}:charge`);
        return { chargeId: `charge-${info.key}`, attempt: info.attempt };
      });
      if (failOnce && ctx.attempt === 1) throw new Error("the card network answered late");
      const reserved = await ctx.step.transaction("reserve", async (tx) => {
        count(`${ctx.task.id}:reserve`);
        await tx.report.create({ data: { id: reportId, status: "reserved" } });
        return { reportId };
      });
      if (sleepMs > 0) {
        if (!slept.has(ctx.task.id)) slept.set(ctx.task.id, { asked: Date.now() });
        await ctx.step.sleep("cool-down", sleepMs);
        slept.get(ctx.task.id)!.woke ??= Date.now();
      }
      const shipped = await ctx.step.waitForEvent<{ tracking: string }>("shipped", { event: "shipped", timeoutMs: waitMs });
      return { charge, reserved, shipped };
    },
  },
  "renamed-step": {
    payload: z.object({}),
    maxAttempts: 2,
    backoff: { baseMs: 10, maxMs: 10 },
    handler: async (_payload, ctx) => {
      // The first run records "a" and fails; the second (as if its code changed meanwhile) asks for "b" first.
      await ctx.step.run(ctx.attempt === 1 ? "a" : "b", () => 1);
      throw new Error("fail once");
    },
  },
  "steps-in-transaction": {
    payload: z.object({}),
    transactional: true,
    maxAttempts: 1,
    handler: async (_payload, ctx) => ctx.step.run("inside", () => 1),
  },
  quick: { payload: z.object({ n: z.number() }), handler: async ({ n }) => n },
  "swallows-sleep": {
    payload: z.object({}),
    deleteOnSuccess: true,
    handler: async (_payload, ctx) => {
      await ctx.step.run("first", () => 1);
      try {
        await ctx.step.sleep("nap", 200);
      } catch {
        // A handler that catches the sleep's suspension and returns: the task waits all the same.
      }
    },
  },
});

type Client = ReturnType<typeof testPrisma>;

describe.each(SETUPS)("workflows on $dialect.name with $transport wake-ups", ({ dialect, options }) => {
  const logger = recordingLogger();
  let database: { url: string; drop(): Promise<void> };
  let prisma: ReturnType<typeof extend>;
  let worker: Worker;
  let store: Store;
  const extend = (base: Client, transport: Record<string, unknown>) => base.$extends(taskQueue({ tasks, logger: silentLogger, ...transport }));

  beforeAll(async () => {
    database = await dialect.createDatabase();
    const transport = options(inject("amqpUrl"), uniquePrefix());
    prisma = extend(dialect.prismaClient(database.url) as unknown as Client, transport);
    store = openStore(database.url, { max: 2 });
    // Polling once a minute: every run here is started by a wake-up or a timer, never by a poll.
    worker = createWorker({ tasks, databaseUrl: database.url, prisma, logger, concurrency: 1, pollIntervalMs: 60_000, ...transport });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await store?.close();
    await database?.drop();
  });

  const status = async (id: string) => (await store.findTask(id))?.status;
  const waiting = async (id: string) => (await store.loadSteps(id)).some((step) => step.kind === "wait" && step.state === "waiting") && (await status(id)) === "pending";

  it("runs each step once across a failed run, commits a transactional step's writes with its record, and gets the event sent in the app's transaction", async () => {
    const reportId = crypto.randomUUID();
    const task = await prisma.task.enqueue("order", { reportId, failOnce: true });
    await waitUntil(() => waiting(task.id), "the workflow to wait for its event");
    // The first run charged and failed; the second replayed the charge and reserved once.
    expect([ran.get(`${task.id}:charge`), ran.get(`${task.id}:reserve`)]).toEqual([1, 1]);
    expect(await prisma.report.count({ where: { id: reportId } })).toBe(1);

    // An event whose transaction rolls back is never delivered.
    await expect(
      prisma.$transaction(async (tx) => {
        expect(await tx.task.signal(task.id, "shipped", { tracking: "never" })).toEqual({ accepted: true, woken: true });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await waiting(task.id)).toBe(true);

    const sent = await prisma.$transaction(async (tx) => {
      await tx.report.update({ where: { id: reportId }, data: { status: "shipped" } });
      return tx.task.signal(task.id, "shipped", { tracking: "t-42" });
    });
    expect(sent).toEqual({ accepted: true, woken: true });
    await waitUntil(async () => (await status(task.id)) === "succeeded", "the workflow to finish");
    const row = await store.findTask(task.id);
    expect(row!.result).toEqual({
      charge: { chargeId: `charge-${task.id}:1`, attempt: 1 },
      reserved: { reportId },
      shipped: { timedOut: false, payload: { tracking: "t-42" } },
    });
    // Two failed-and-retried runs' worth of attempts: the failure counted, the wait did not.
    expect(row!.attempts).toBe(2);
    expect([ran.get(`${task.id}:charge`), ran.get(`${task.id}:reserve`)]).toEqual([1, 1]);
    expect((await store.loadSteps(task.id)).map((step) => [step.seq, step.name, step.kind, step.state])).toEqual([
      [1, "charge", "run", "done"],
      [2, "reserve", "transaction", "done"],
      [3, "shipped", "wait", "done"],
    ]);
    expect(logger.find("task suspended", { taskId: task.id })).toHaveLength(1);
    // The finished task accepts no more events.
    expect(await prisma.task.signal(task.id, "shipped", null)).toEqual({ accepted: false, woken: false });
  });

  it("keeps an event sent before the wait began, and the wait receives it without suspending", async () => {
    const task = await prisma.$transaction(async (tx) => {
      const enqueued = await tx.task.enqueue("order", { reportId: crypto.randomUUID() });
      // Sent in the same transaction as the enqueue: it exists before the workflow's first run.
      expect(await tx.task.signal(enqueued.id, "shipped", { tracking: "early" })).toEqual({ accepted: true, woken: false });
      return enqueued;
    });
    await waitUntil(async () => (await status(task.id)) === "succeeded", "the workflow to finish");
    expect((await store.findTask(task.id))!.result).toMatchObject({ shipped: { timedOut: false, payload: { tracking: "early" } } });
    expect(logger.find("task suspended", { taskId: task.id })).toHaveLength(0);
  });

  it("sleeps without holding the worker's only slot, and wakes at its time", async () => {
    const task = await prisma.task.enqueue("order", { reportId: crypto.randomUUID(), sleepMs: 1500, waitMs: 0 });
    await waitUntil(async () => (await store.loadSteps(task.id)).some((step) => step.kind === "sleep") && (await status(task.id)) === "pending", "the sleep");
    // The worker runs one task at a time: a task enqueued now runs while the workflow sleeps.
    const other = await prisma.task.enqueue("quick", { n: 7 });
    await waitUntil(async () => (await status(other.id)) === "succeeded", "the other task to run during the sleep");
    expect(await status(task.id)).toBe("pending");
    await waitUntil(async () => (await status(task.id)) === "succeeded", "the workflow to wake and finish");
    const [sleep] = (await store.loadSteps(task.id)).filter((step) => step.kind === "sleep");
    const { asked, woke } = slept.get(task.id)!;
    expect(woke! - asked).toBeGreaterThanOrEqual(1500 - 5);
    expect(woke).toBeGreaterThanOrEqual(sleep!.until!.getTime() - 50); // the database's clock and this one's may differ a little
    // A wait with a deadline of 0 ends at once, timed out.
    expect((await store.findTask(task.id))!.result).toMatchObject({ shipped: { timedOut: true } });
  });

  it("a wait that reaches its deadline without an event ends timed out", async () => {
    const task = await prisma.task.enqueue("order", { reportId: crypto.randomUUID(), waitMs: 300 });
    await waitUntil(async () => (await status(task.id)) === "succeeded", "the wait to time out and the workflow to finish");
    expect((await store.findTask(task.id))!.result).toMatchObject({ shipped: { timedOut: true } });
    expect(logger.find("task suspended", { taskId: task.id })).toHaveLength(1);
  });

  it("fails a replay that asks for other steps than were recorded, saying which", async () => {
    const task = await prisma.task.enqueue("renamed-step", {});
    await waitUntil(async () => (await status(task.id)) === "dead", "the task to go dead");
    const row = await store.findTask(task.id);
    expect(row!.lastError).toContain('asked for step 1 as run "b", but an earlier run recorded step 1 as run "a"');
    expect(row!.lastError).toContain("a workflow must ask for its steps in the order they were recorded");
    expect((await store.loadSteps(task.id)).map((step) => step.name)).toEqual(["a"]);
  });

  it("suspends a run whose handler caught its sleep, saying so, and keeps a workflow's row under deleteOnSuccess", async () => {
    const task = await prisma.task.enqueue("swallows-sleep", {});
    await waitUntil(async () => (await status(task.id)) === "succeeded", "the workflow to sleep, wake and finish");
    expect(
      logger.find("the handler returned after a sleep or wait ended its run (it caught the suspension): the task waits all the same", { taskId: task.id }),
    ).toHaveLength(1);
    expect(logger.find("task suspended", { taskId: task.id })).toHaveLength(1);
    expect((await store.loadSteps(task.id)).map((step) => step.name)).toEqual(["first", "nap"]);
  });

  it("refuses steps in a handler that runs in a transaction, naming the fix", async () => {
    const task = await prisma.task.enqueue("steps-in-transaction", {});
    await waitUntil(async () => (await status(task.id)) === "dead", "the task to go dead");
    expect((await store.findTask(task.id))!.lastError).toContain("leave out `transactional: true`");
  });

  it("refuses an event that cannot be sent before writing anything, naming the value", async () => {
    await expect(prisma.task.signal("not-an-id", "shipped")).rejects.toThrow('the task id "not-an-id" is not a task\'s id');
    await expect(prisma.task.signal(crypto.randomUUID(), "")).rejects.toThrow("the event name is a string of 1 to 200 characters");
    await expect(prisma.task.signal(crypto.randomUUID(), "shipped", { big: 1n })).rejects.toThrow("cannot be stored as JSON");
    expect(await prisma.task.signal(crypto.randomUUID(), "shipped")).toEqual({ accepted: false, woken: false });
  });
});
