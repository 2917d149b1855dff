// The app the testing helpers are tried on, as a user would write it: a task registry and a service function that
// writes a report and enqueues its tasks in one transaction. Handlers write through ctx.prisma, the app's client.

import { randomUUID } from "node:crypto";
import { z } from "zod";
import { defineTasks, UnrecoverableError, type EnqueuedTask, type TaskQueueHandle } from "../../src/index.js";

/** Every run of a handler in this process, in order (tests read and reset it). */
export const handled: Array<{ name: string; payload: unknown; attempt: number; status?: string; leaseOwner?: string | null }> = [];

/** What the handlers use of the app's client, common to every dialect's generated client. */
export interface AppBaseClient {
  report: ReportWrites;
  $transaction<T>(fn: (tx: { report: ReportWrites }) => Promise<T>): Promise<T>;
}
interface ReportWrites {
  update(args: { where: { id: string }; data: { status: string } }): Promise<{ id: string }>;
}

export const appTasks = defineTasks<AppBaseClient>()({
  "send-report": {
    payload: z.object({ reportId: z.string(), failWith: z.string().optional(), unrecoverable: z.boolean().optional() }),
    queue: "reports",
    maxAttempts: 3,
    handler: async ({ reportId, failWith, unrecoverable }, ctx) => {
      handled.push({ name: "send-report", payload: { reportId }, attempt: ctx.attempt, status: ctx.task.status, leaseOwner: ctx.task.leaseOwner });
      if (unrecoverable) throw new UnrecoverableError(`report ${reportId} cannot be sent`);
      if (failWith) throw new Error(failWith);
      await ctx.prisma.report.update({ where: { id: reportId }, data: { status: "sent" } });
      await ctx.prisma.task.enqueue("audit", { event: `sent ${reportId}` });
      return { sent: reportId };
    },
  },
  audit: {
    payload: z.object({ event: z.string() }),
    handler: async (payload, ctx) => {
      handled.push({ name: "audit", payload, attempt: ctx.attempt });
    },
  },
  "close-report": {
    payload: z.object({ reportId: z.string() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      handled.push({ name: "close-report", payload: { reportId }, attempt: ctx.attempt });
      await ctx.tx.report.update({ where: { id: reportId }, data: { status: "closed" } });
    },
  },
  "enqueue-only": {
    payload: z.object({ note: z.string() }),
  },
});

/** The app's extended client, typed loosely: each dialect has its own generated client. */
export interface AppClient {
  task: {
    enqueue(name: string, payload: unknown, options?: object): Promise<EnqueuedTask>;
    enqueueMany(items: Array<{ name: string; payload: unknown; options?: object }>): Promise<EnqueuedTask[]>;
  };
  report: {
    create(args: { data: { id: string; status?: string } }): Promise<{ id: string }>;
    findUnique(args: { where: { id: string } }): Promise<{ id: string; status: string } | null>;
  };
  $transaction<T>(fn: (tx: AppClient) => Promise<T>): Promise<T>;
  $taskQueue: TaskQueueHandle;
  $disconnect(): Promise<void>;
}

export class Rollback extends Error {}

/**
 * The service under test: creates a report and, in the same transaction, enqueues sending it (deduplicated per
 * report, delayed when asked). `failWith` makes its handler throw; `rollback` aborts the transaction at the end.
 */
export async function requestReport(
  prisma: AppClient,
  options: { failWith?: string; unrecoverable?: boolean; delayMs?: number; rollback?: boolean } = {},
): Promise<{ reportId: string; task: EnqueuedTask }> {
  return prisma.$transaction(async (tx) => {
    const report = await tx.report.create({ data: { id: randomUUID() } });
    const payload = { reportId: report.id, ...(options.failWith ? { failWith: options.failWith } : {}), ...(options.unrecoverable ? { unrecoverable: true } : {}) };
    const task = await tx.task.enqueue("send-report", payload, { key: `report:${report.id}`, ...(options.delayMs ? { delayMs: options.delayMs } : {}) });
    if (options.rollback) throw new Rollback("the service gave up");
    return { reportId: report.id, task };
  });
}
