// The conformance suite's tasks, shared by in-process workers and child processes: every handler logs its start and
// end to the run log (CONFORMANCE_RUN_LOG), so a case can tell exactly what ran, where and how often.

import { z } from "zod";
import { defineTasks, UnrecoverableError } from "../../src/index.js";
import { logRun } from "./run-log.js";

const runLog = () => process.env.CONFORMANCE_RUN_LOG ?? "";
const workerName = () => process.env.CONFORMANCE_WORKER ?? `in-process-${process.pid}`;

/** The signal's reason as an Error (the worker aborts with one; anything else is wrapped). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`, { cause: reason });
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(abortReason(signal))), { once: true });
  });
}

/** The part of every dialect's generated test client the handlers use: its business model `report`. */
interface ReportClient {
  $transaction<Result>(
    fn: (tx: { report: { create(args: { data: { status: string; result?: string } }): Promise<{ id: string }> } }) => Promise<Result>,
  ): Promise<Result>;
}

/** The tasks a worker without the app's Prisma client runs (no transactional task). */
export const plainTasks = defineTasks<ReportClient>()({
  /** Logs its run, sleeps `ms` (`retryMs` on attempts after the first, when given), succeeds. */
  run: {
    payload: z.object({ ms: z.number().int().min(0).default(0), retryMs: z.number().int().min(0).optional() }),
    handler: async ({ ms, retryMs }, ctx) => {
      logRun(runLog(), { id: ctx.task.id, e: "start", attempt: ctx.attempt, worker: workerName() });
      const sleepMs = ctx.attempt > 1 ? (retryMs ?? ms) : ms;
      if (sleepMs > 0) await sleep(sleepMs, ctx.signal);
      logRun(runLog(), { id: ctx.task.id, e: "end", attempt: ctx.attempt, worker: workerName() });
      return { worker: workerName() };
    },
  },
  /** Always fails; with `final`, throws UnrecoverableError. */
  fail: {
    payload: z.object({ final: z.boolean().default(false) }),
    backoff: { baseMs: 10, maxMs: 50, jitter: 0 },
    handler: async ({ final }, ctx) => {
      logRun(runLog(), { id: ctx.task.id, e: "start", attempt: ctx.attempt, worker: workerName() });
      if (final) throw new UnrecoverableError(`attempt ${ctx.attempt} gave up for good`);
      throw new Error(`attempt ${ctx.attempt} failed`);
    },
  },
});

/** Every conformance task; `effect` is transactional, so a worker running it needs the app's client. */
export const conformanceTasks = defineTasks<ReportClient>()({
  ...plainTasks,
  /** Writes a business row through ctx.tx, then fails on the attempts listed in `failOn` (after the write). */
  effect: {
    payload: z.object({ tag: z.string(), failOn: z.array(z.number().int()).default([]) }),
    transactional: true,
    backoff: { baseMs: 10, maxMs: 50, jitter: 0 },
    handler: async ({ tag, failOn }, ctx) => {
      logRun(runLog(), { id: ctx.task.id, e: "start", attempt: ctx.attempt, worker: workerName() });
      await ctx.tx.report.create({ data: { status: "effect", result: tag } });
      if (failOn.includes(ctx.attempt)) throw new Error(`attempt ${ctx.attempt} failed after its write`);
      return { tag };
    },
  },
});

export type ConformanceTasks = typeof conformanceTasks;
