// Type tests of the handler's context: with defineTasks<Client>() ctx.prisma and ctx.tx carry the app's client and
// transaction-client types (plus the registry's enqueue), and no property of ctx is `any`. Checked by tsc and vitest.

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  createCleaner,
  type ClientWith,
  createWorker,
  defineTasks,
  taskQueue,
  type EnqueuedTask,
  type Logger,
  type TaskModelMethods,
  type SignalMethod,
  type SentSignal,
  type EventResult,
  type ChildHandle,
  type ChildOutcome,
  type StepInfo,
  type TaskRecord,
  type TransactionClientOf,
  type UntypedClient,
  type UntypedTransactionClient,
} from "../../src/index.js";
import type { Prisma, PrismaClient } from "../generated/client.js";
import { testPrisma } from "../support/prisma.js";

/** The keys of T whose type is `any`. */
type AnyKeys<T> = { [Key in keyof T]-?: 0 extends 1 & T[Key] ? Key : never }[keyof T];

const tasks = defineTasks<PrismaClient>()({
  "write-report": {
    payload: z.object({ reportId: z.string() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      expectTypeOf<AnyKeys<typeof ctx>>().toBeNever();
      expectTypeOf(ctx.tx).not.toBeAny();
      expectTypeOf(ctx.prisma).not.toBeAny();
      expectTypeOf(ctx.task).toEqualTypeOf<TaskRecord>();
      expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.logger).toEqualTypeOf<Logger>();
      // The transaction client of the generated client, its task model carrying this registry's enqueue.
      expectTypeOf<Omit<typeof ctx.tx, "task">>().toEqualTypeOf<Omit<Prisma.TransactionClient, "task">>();
      expectTypeOf(ctx.tx.task).toMatchTypeOf<Prisma.TransactionClient["task"]>();
      expectTypeOf<typeof ctx.tx.report.findUnique>().toEqualTypeOf<Prisma.TransactionClient["report"]["findUnique"]>();
      expectTypeOf<typeof ctx.prisma.report.update>().toEqualTypeOf<PrismaClient["report"]["update"]>();
      // ctx.prisma.$transaction hands out the transaction client with this registry's enqueue, as at run time.
      await ctx.prisma.$transaction(
        async (tx) => {
          expectTypeOf<Omit<typeof tx, "task">>().toEqualTypeOf<Omit<Prisma.TransactionClient, "task">>();
          expectTypeOf(tx.task.enqueue("notify", { reportId })).resolves.toEqualTypeOf<EnqueuedTask<"notify">>();
          // @ts-expect-error not a task of this registry
          void tx.task.enqueue("notfiy", { reportId });
        },
        { timeout: 1000 },
      );
      // and keeps the client's batch form
      expectTypeOf(ctx.prisma.$transaction([ctx.prisma.report.count()])).resolves.toEqualTypeOf<[number]>();
      const report = await ctx.tx.report.update({ where: { id: reportId }, data: { status: "done" } });
      expectTypeOf(report.status).toEqualTypeOf<string>();
      // @ts-expect-error misspelt model
      void ctx.tx.reprot;
      // @ts-expect-error misspelt field in a where
      await ctx.tx.report.findMany({ where: { stauts: "done" } });
      // @ts-expect-error misspelt field in data
      await ctx.tx.report.update({ where: { id: reportId }, data: { reslt: "x" } });
      // @ts-expect-error wrong type of a field
      await ctx.prisma.report.create({ data: { status: 1 } });
      // A follow-up task through the handler's transaction: names and payloads of this registry.
      expectTypeOf(ctx.tx.task.enqueue("notify", { reportId })).resolves.toEqualTypeOf<EnqueuedTask<"notify">>();
      // @ts-expect-error not a task of this registry
      void ctx.tx.task.enqueue("notfiy", { reportId });
      // @ts-expect-error the payload of another task
      void ctx.prisma.task.enqueue("notify", { url: "u" });
      return report.id;
    },
  },
  notify: {
    payload: z.object({ reportId: z.string() }),
    recovery: (_task, ctx) => {
      expectTypeOf(ctx.prisma.report).toHaveProperty("findMany").toEqualTypeOf<PrismaClient["report"]["findMany"]>();
      return "dead";
    },
    handler: async (_payload, ctx) => {
      expectTypeOf<AnyKeys<typeof ctx>>().toBeNever();
      // Outside transactional: true there is no transaction.
      expectTypeOf(ctx.tx).toEqualTypeOf<undefined>();
      expectTypeOf<typeof ctx.prisma.report.count>().toEqualTypeOf<PrismaClient["report"]["count"]>();
      // @ts-expect-error misspelt model
      void ctx.prisma.reprot;
      // Workflow steps: a step's result keeps its type; a transactional step gets the registry's transaction client.
      const charged = await ctx.step.run("charge", (info) => {
        expectTypeOf(info).toEqualTypeOf<StepInfo>();
        return { chargeId: info.key };
      });
      expectTypeOf(charged).toEqualTypeOf<{ chargeId: string }>();
      const count = await ctx.step.transaction("reserve", async (tx) => {
        expectTypeOf<typeof tx.report.count>().toEqualTypeOf<Prisma.TransactionClient["report"]["count"]>();
        expectTypeOf(tx.task.enqueue("notify", { reportId: "r" })).resolves.toEqualTypeOf<EnqueuedTask<"notify">>();
        // @ts-expect-error not a task of this registry
        void tx.task.enqueue("notfiy", { reportId: "r" });
        return tx.report.count();
      });
      expectTypeOf(count).toEqualTypeOf<number>();
      expectTypeOf(ctx.step.sleep("pause", 1000)).resolves.toEqualTypeOf<void>();
      expectTypeOf(ctx.step.sleepUntil("until", new Date())).resolves.toEqualTypeOf<void>();
      const shipped = await ctx.step.waitForEvent<{ trackingId: string }>("shipped", { event: "shipped", timeoutMs: 60_000 });
      expectTypeOf(shipped).toEqualTypeOf<EventResult<{ trackingId: string }>>();
      if (!shipped.timedOut) expectTypeOf(shipped.payload.trackingId).toEqualTypeOf<string>();
      // @ts-expect-error a wait names its event
      void ctx.step.waitForEvent("shipped", {});
      // @ts-expect-error a sleep takes milliseconds
      void ctx.step.sleep("pause", "1 day");
      // Children: started through the transaction client's typed enqueue, waited for with their results typed by the caller.
      const children = await ctx.step.startChildren("notify all", async (tx) => [await tx.task.enqueue("notify", { reportId: "r" })]);
      expectTypeOf(children).toEqualTypeOf<ChildHandle[]>();
      // @ts-expect-error a start of children returns what its enqueues returned
      void ctx.step.startChildren("notify all", async () => 3);
      const outcomes = await ctx.step.waitForChildren<{ sent: boolean }>("notified", children, { until: "first", onFailure: "collect" });
      expectTypeOf(outcomes).toEqualTypeOf<Array<ChildOutcome<{ sent: boolean }>>>();
      const [first] = outcomes;
      if (first?.status === "succeeded") expectTypeOf(first.result.sent).toEqualTypeOf<boolean>();
      if (first?.status === "dead") expectTypeOf(first.error).toEqualTypeOf<string | null>();
      // @ts-expect-error not a policy
      void ctx.step.waitForChildren("notified", children, { onFailure: "skip" });
      // An event sent from a handler, as from the app's transaction.
      expectTypeOf(ctx.prisma.task.signal("0190a0b4-0000-7000-8000-000000000000", "shipped", { trackingId: "t" })).resolves.toEqualTypeOf<SentSignal>();
    },
  },
});

declare const url: string;
const prisma = testPrisma(url).$extends(taskQueue({ tasks }));

describe("typed handler context", () => {
  it("derives the transaction client from the client's own $transaction", () => {
    expectTypeOf<TransactionClientOf<PrismaClient>>().toEqualTypeOf<Prisma.TransactionClient>();
    expectTypeOf<TransactionClientOf<UntypedClient>>().toEqualTypeOf<UntypedTransactionClient>();
  });

  it("puts the whole registry's enqueue on ctx.tx, not just the task being defined", () => {
    type Transactional = Extract<(typeof tasks)["write-report"], { transactional: true }>;
    type WriteCtx = Parameters<NonNullable<Transactional["handler"]>>[1];
    expectTypeOf<WriteCtx["tx"]>().toEqualTypeOf<Prisma.TransactionClient & { task: TaskModelMethods<typeof tasks> & SignalMethod }>();
    expectTypeOf<WriteCtx["prisma"]>().toEqualTypeOf<ClientWith<PrismaClient, { task: TaskModelMethods<typeof tasks> & SignalMethod }>>();
  });

  it("keeps enqueue, createWorker and createCleaner typed for a registry with a client type", () => {
    expectTypeOf(prisma.task.enqueue("write-report", { reportId: "r" })).resolves.toEqualTypeOf<EnqueuedTask<"write-report">>();
    // @ts-expect-error payload of the wrong shape
    void prisma.task.enqueue("write-report", { reportId: 1 });
    expectTypeOf(createWorker<typeof tasks>).toBeFunction();
    void (() => createWorker({ tasks, prisma, databaseUrl: url }));
    void (() => createCleaner({ tasks, prisma, databaseUrl: url }));
  });

  it("names the task model given as the second type argument", () => {
    const renamed = defineTasks<PrismaClient, "Report">()({
      ping: {
        payload: z.object({}),
        transactional: true,
        handler: async (_payload, ctx) => {
          expectTypeOf<typeof ctx.tx.report.enqueue>().toBeFunction();
          expectTypeOf(ctx.tx.task).not.toHaveProperty("enqueue");
        },
      },
    });
    void renamed;
  });

  it("without a client type, offers raw statements and enqueue, never any", () => {
    const untyped = defineTasks({
      plain: {
        payload: z.object({ n: z.number() }),
        transactional: true,
        handler: async ({ n }, ctx) => {
          expectTypeOf<AnyKeys<typeof ctx>>().toBeNever();
          expectTypeOf(ctx.tx).not.toBeAny();
          expectTypeOf(ctx.tx.$executeRaw`SELECT ${n}`).resolves.toEqualTypeOf<number>();
          expectTypeOf(ctx.tx.task.enqueue("plain", { n: 1 })).resolves.toEqualTypeOf<EnqueuedTask<"plain">>();
          expectTypeOf(ctx.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`)).resolves.toBeUnknown();
          expectTypeOf(ctx.prisma.$transaction(async (tx) => tx.task.enqueue("plain", { n }))).resolves.toEqualTypeOf<EnqueuedTask<"plain">>();
          // @ts-expect-error models need the client type: defineTasks<PrismaClient>()({ … })
          void ctx.tx.report;
        },
      },
    });
    void untyped;
  });

  it("composes registries by spreading, as before", () => {
    const more = defineTasks<PrismaClient>()({ ...tasks, extra: { payload: z.object({}), handler: async () => {} } });
    expectTypeOf(prisma.$extends(taskQueue({ tasks: more })).task.enqueue).toBeFunction();
  });
});
