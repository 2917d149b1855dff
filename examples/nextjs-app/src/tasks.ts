// The example's task registry, shared by the app (which enqueues) and whatever runs the handlers (the runner, the app
// itself after its responses and on its cron route, or its embedded worker). generate-report fetches the report's data
// from a flaky "third-party" service and stores it exactly once; report-digest counts the finished reports every 10 s;
// fulfil-order is a durable workflow (steps, children, an event, a sleep) and pack-item its child.

import { defineTasks, UnrecoverableError } from "prisma-task-queue";
import { z } from "zod";
import { appUrl } from "./settings";
import type { Prisma, PrismaClient } from "./generated/prisma/client";
import type { ReportData } from "./report-data";

/** The dedupe key of a report's task; the page finds the task row by it. */
export function reportTaskKey(reportId: string): string {
  return `report:${reportId}`;
}

// Naming the generated (base) client types the handlers' ctx.tx and ctx.prisma: no casts. The extended client in db.ts
// cannot be named here, since its type is computed from these tasks.
export const tasks = defineTasks<PrismaClient>()({
  "generate-report": {
    // slowMs: the third-party service takes that long to answer (the page's "slow report"), so a run can be cut short.
    payload: z.object({ reportId: z.uuid(), slowMs: z.number().int().min(0).max(4_000).optional() }),
    // The third-party service fails the first calls of every report (FLAKY_FAILURES, default 2): with a short backoff
    // the retries show on the page within a couple of seconds. Five attempts leave room for a longer outage.
    maxAttempts: 5,
    backoff: { baseMs: 500, factor: 2, maxMs: 10_000 },
    // Five seconds per call is plenty for the service; in serverless mode a run starts after the response only when
    // its timeout fits in what the invocation has left (afterBudgetMs in db.ts).
    timeoutMs: 5_000,
    // The handler's writes go through ctx.tx, the transaction that marks the task succeeded: the report is stored
    // once even if the worker dies between storing it and completing the task.
    transactional: true,
    async handler({ reportId, slowMs }, ctx) {
      const query = new URLSearchParams({ reportId, ...(slowMs ? { slowMs: String(slowMs) } : {}) });
      const response = await fetch(`${appUrl()}/api/third-party/report-data?${query}`, { signal: ctx.signal });
      if (!response.ok) {
        throw new Error(`third-party service answered ${response.status} on attempt ${ctx.attempt}: ${await response.text()}`);
      }
      const data = (await response.json()) as ReportData;
      const stored = await ctx.tx.report.updateMany({
        where: { id: reportId, status: "pending" },
        data: { status: "done", result: data as unknown as Prisma.InputJsonValue, completedAt: new Date() },
      });
      if (stored.count === 0) {
        throw new UnrecoverableError(`report ${reportId} does not exist or is not pending; nothing to generate.`);
      }
      return { reportId, lines: data.lines.length };
    },
  },
  "fulfil-order": {
    // reviewDelayMs: how long after shipping to ask for a review (two days in a shop; a second in the tests).
    payload: z.object({
      orderId: z.uuid(),
      items: z.array(z.string().min(1)).min(1).max(20),
      reviewDelayMs: z
        .number()
        .int()
        .min(0)
        .default(2 * 86_400_000),
    }),
    // Each run (between a sleep or a wait and the next) has this long; the whole workflow may take days.
    timeoutMs: 10_000,
    async handler({ orderId, items, reviewDelayMs }, ctx) {
      // An outside call, at least once: the payment provider gets the step's stable key as its idempotency key, so a
      // retried charge after a crash is the same charge.
      const charge = await ctx.step.run("charge card", ({ key }) => ({ chargeId: `ch_${key.replaceAll(/[^a-z0-9]/gi, "").slice(-16)}` }));
      // Exactly once: the order's row and the step's record commit together.
      await ctx.step.transaction("mark charged", (tx) => tx.order.update({ where: { id: orderId }, data: { status: "charged", chargeId: charge.chargeId } }));
      // One child task per item, enqueued with this step's record: started once, whatever crashes.
      const children = await ctx.step.startChildren("pack items", (tx) => Promise.all(items.map((item) => tx.task.enqueue("pack-item", { orderId, item }))));
      // No worker is held while they run; the last one's end wakes this workflow.
      const packed = await ctx.step.waitForChildren<{ item: string; box: string }>("wait for packing", children);
      const boxes = packed.flatMap((child) => (child.status === "succeeded" ? [child.result] : []));
      await ctx.step.transaction("mark packed", (tx) => tx.order.update({ where: { id: orderId }, data: { status: "packed", boxes } }));
      // The warehouse's webhook sends "shipped" in the transaction that records the tracking number.
      const shipped = await ctx.step.waitForEvent<{ tracking: string }>("await shipment", { event: "shipped", timeoutMs: 14 * 86_400_000 });
      if (shipped.timedOut) throw new UnrecoverableError(`order ${orderId} was not shipped within 14 days`);
      await ctx.step.transaction("mark shipped", (tx) => tx.order.update({ where: { id: orderId }, data: { status: "shipped" } }));
      await ctx.step.sleep("before review", reviewDelayMs);
      await ctx.step.transaction("ask for review", (tx) => tx.order.update({ where: { id: orderId }, data: { status: "completed" } }));
      return { orderId, chargeId: charge.chargeId, boxes: boxes.length, tracking: shipped.payload.tracking };
    },
  },
  "pack-item": {
    payload: z.object({ orderId: z.uuid(), item: z.string() }),
    async handler({ item }, ctx) {
      return { item, box: `box-${ctx.task.id.slice(-6)}` };
    },
  },
  "report-digest": {
    payload: z.object({}),
    // A recurring task, exactly once per slot: fired by the cleaner (runner and self-hosted modes) or by the cron
    // route's sweep (serverless mode). Six fields: every 10 seconds.
    schedules: [{ cron: "*/10 * * * * *", payload: {} }],
    timeoutMs: 5_000,
    async handler(_payload, ctx) {
      if (!ctx.prisma) throw new UnrecoverableError("report-digest reads the reports through ctx.prisma: give the runner the app's client (prisma).");
      const done = await ctx.prisma.report.count({ where: { status: "done" } });
      return { done, slot: ctx.task.runAt.toISOString() };
    },
  },
});
