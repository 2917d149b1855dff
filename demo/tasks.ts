// The demo's tasks: a report generator that fails a few times before it succeeds (retries with backoff), an email
// that succeeds at once, and a reminder that is enqueued with a delay. Every run is recorded in demo_runs, through the
// handler's transaction (Prisma's tagged $executeRaw writes the placeholders of either database).

import { z } from "zod";
import { defineTasks } from "../src/index.js";
import type { PrismaClient } from "../test/generated/client.js";

// The handlers' ctx.tx is the generated client's transaction client (the SQLite client has the same models).
export const demoTasks = defineTasks<PrismaClient>()({
  "generate-report": {
    payload: z.object({ reportId: z.string().uuid(), failTimes: z.number().int().min(0) }),
    queue: "reports",
    maxAttempts: 5,
    backoff: { baseMs: 200, factor: 2, jitter: 0.2 },
    transactional: true,
    handler: async ({ reportId, failTimes }, ctx) => {
      const outcome = ctx.attempt <= failTimes ? "failed" : "succeeded";
      await ctx.tx.$executeRaw`INSERT INTO demo_runs (task_id, attempt, outcome) VALUES (${ctx.task.id}, ${ctx.attempt}, ${outcome})`;
      if (ctx.attempt <= failTimes) throw new Error(`third-party report service unavailable (attempt ${ctx.attempt})`);
      await ctx.tx.report.update({ where: { id: reportId }, data: { status: "done", result: `report ${reportId.slice(0, 8)}` } });
      return { pages: 3 };
    },
  },
  "send-email": {
    payload: z.object({ to: z.string().email() }),
    transactional: true,
    handler: async (_payload, ctx) => {
      await ctx.tx.$executeRaw`INSERT INTO demo_runs (task_id, attempt, outcome) VALUES (${ctx.task.id}, ${ctx.attempt}, 'succeeded')`;
    },
  },
  reminder: {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async (_payload, ctx) => {
      await ctx.tx.$executeRaw`INSERT INTO demo_runs (task_id, attempt, outcome) VALUES (${ctx.task.id}, ${ctx.attempt}, 'succeeded')`;
    },
  },
});
