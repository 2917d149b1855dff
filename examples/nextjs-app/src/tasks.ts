// The example's task registry, shared by the app (which enqueues) and the runner (which runs the handlers).
// generate-report fetches the report's data from a flaky "third-party" service and stores it exactly once.

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
    payload: z.object({ reportId: z.uuid() }),
    // The third-party service fails the first calls of every report (FLAKY_FAILURES, default 2): with a short backoff
    // the retries show on the page within a couple of seconds. Five attempts leave room for a longer outage.
    maxAttempts: 5,
    backoff: { baseMs: 500, factor: 2, maxMs: 10_000 },
    timeoutMs: 15_000,
    // The handler's writes go through ctx.tx, the transaction that marks the task succeeded: the report is stored
    // once even if the worker dies between storing it and completing the task.
    transactional: true,
    async handler({ reportId }, ctx) {
      const response = await fetch(`${appUrl()}/api/third-party/report-data?reportId=${encodeURIComponent(reportId)}`, {
        signal: ctx.signal,
      });
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
});
