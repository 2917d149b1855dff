// The one task the benchmark runs through prisma-task-queue: a no-op that reports its payload's `n`.
// The harness enqueues it without a handler; the worker child passes the handler.

import { z } from "zod";
import { defineTasks } from "../../src/index.js";

export const BENCH_TASK = "bench-noop";

/**
 * `onRun` is called at each handler's start with the payload's n, the task's id, and when its claim's lease expires
 * (database clock, Unix ms): the claim time is that minus the worker's leaseMs.
 */
export function benchTasks(onRun?: (n: number, id: string, leaseExpiresAtMs: number) => void) {
  return defineTasks({
    [BENCH_TASK]: {
      payload: z.object({ n: z.number().int() }),
      handler: onRun
        ? (payload: { n: number }, ctx: { task: { id: string; leaseExpiresAt: Date | null } }) =>
            onRun(payload.n, ctx.task.id, ctx.task.leaseExpiresAt?.getTime() ?? Number.NaN)
        : undefined,
    },
  });
}
