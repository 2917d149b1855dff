// The soak's tasks. Every run appends to a run log (one JSON line per event, written synchronously so a SIGKILL
// cannot lose an event already reported) that the checker reads to find double runs; every way a handler ends is logged.

import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTasks, type TaskContext } from "../../src/index.js";

export interface RunEvent {
  /**
   * start; ok = the handler returned (for a transactional task its transaction may still fail to commit: the checker
   * looks for its effect row); fail = it threw; abort = it threw because the worker aborted its signal; suspend = a
   * workflow's sleep or wait ended the run (its next run has the same attempt).
   */
  e: "start" | "ok" | "fail" | "abort" | "suspend";
  /** For "fail" and "abort": the thrown error's name and message (TaskTimeoutError, TaskLeaseLostError, …). */
  reason?: string;
  id: string;
  attempt: number;
  pid: number;
  t: number;
  /** On "start": the task's queue, its concurrency key, and its claim's time by the database clock (updated_at as claimed). */
  queue?: string;
  key?: string | null;
  claimedAt?: number;
}

export function runLogFile(dir: string, pid: number): string {
  return join(dir, `runs-${pid}.jsonl`);
}

/**
 * The skew of this host's clock that the soak applied (--hosts: a worker host runs under libfaketime). The run log is
 * the soak's instrument, not the queue's: its times are the machine's, so that runs of different hosts compare.
 */
const clockSkewMs = Number(process.env.SOAK_CLOCK_SKEW_MS || 0);

function log(event: Omit<RunEvent, "pid" | "t">): void {
  const dir = process.env.SOAK_RUNLOG_DIR;
  if (!dir) return;
  appendFileSync(runLogFile(dir, process.pid), `${JSON.stringify({ ...event, pid: process.pid, t: Date.now() - clockSkewMs })}\n`);
}

function describe(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message.split("\n")[0]}` : String(thrown);
}

/** Wraps a handler so its start and however it ends (returned, threw, aborted) are in the run log. */
function traced<P, Ctx extends TaskContext<unknown, unknown>>(body: (payload: P, ctx: Ctx) => Promise<unknown>) {
  return async (payload: P, ctx: Ctx) => {
    const mark = { id: ctx.task.id, attempt: ctx.attempt };
    log({ e: "start", ...mark, queue: ctx.task.queue, key: ctx.task.concurrencyKey, claimedAt: ctx.task.updatedAt.getTime() });
    try {
      const value = await body(payload, ctx);
      log({ e: "ok", ...mark });
      return value;
    } catch (error) {
      const how = ctx.signal.aborted && error === ctx.signal.reason ? "abort" : (error as Error | null)?.name === "WorkflowSuspended" ? "suspend" : "fail";
      log({ e: how, ...mark, reason: describe(error) });
      throw error;
    }
  };
}

const work = z.object({ sleepMs: z.number().int().min(0), failTimes: z.number().int().min(0) });
const accountWork = work.extend({ account: z.string() });

/** A workflow's plan: how long it sleeps and waits for its event (0: not at all), how many children, planned failures. */
export const workflowPlan = z.object({
  sleepMs: z.number().int().min(0),
  waitMs: z.number().int().min(0),
  children: z.number().int().min(0).max(3),
  /** Whether it waits for its children (else they run on their own and it counts those it started). */
  waitChildren: z.boolean(),
  failTimes: z.number().int().min(0),
});

/** Sleeps `ms`, rejecting with the signal's reason when the worker aborts the run. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });
}

/** The soak's tasks that succeed in the end: many attempts, a short backoff, a timeout no planned sleep reaches. */
const RETRIED = { maxAttempts: 12, timeoutMs: 20_000, backoff: { baseMs: 100, factor: 2, maxMs: 2000 } };

export const soakTasks = defineTasks({
  "soak-plain": {
    payload: work,
    ...RETRIED,
    handler: traced(async ({ sleepMs, failTimes }, ctx) => {
      await sleep(sleepMs, ctx.signal);
      if (ctx.attempt <= failTimes) throw new Error(`planned failure ${ctx.attempt} of ${failTimes}`);
      return { attempt: ctx.attempt };
    }),
  },
  "soak-tx": {
    payload: work,
    maxAttempts: 12,
    timeoutMs: 20_000,
    transactional: true,
    backoff: { baseMs: 100, factor: 2, maxMs: 2000 },
    handler: traced(async ({ sleepMs, failTimes }, ctx) => {
      await sleep(sleepMs, ctx.signal);
      if (ctx.attempt <= failTimes) throw new Error(`planned failure ${ctx.attempt} of ${failTimes}`);
      // The business write: one row per committed attempt (soak_effects), so a double commit shows as two rows.
      await ctx.tx.$executeRaw`INSERT INTO soak_effects (task_id, attempt, pid) VALUES (${ctx.task.id}, ${ctx.attempt}, ${process.pid})`;
      return undefined;
    }),
  },
  // The recurring task: a slot every second and one every 2 seconds, missed policy the default ("skip"). Its run is
  // logged like every other; which slot it belongs to is in the slot table.
  "soak-scheduled": {
    payload: z.object({}),
    ...RETRIED,
    schedules: [
      { key: "every-second", cron: "* * * * * *" },
      { key: "every-2-seconds", cron: "*/2 * * * * *" },
    ],
    handler: traced(async (_payload, ctx) => {
      await sleep(20, ctx.signal);
      return undefined;
    }),
  },
  // The limited queues: at most SOAK_LIMITS.queue running in "soak-limited" and one per account; at most
  // SOAK_LIMITS.rate starts of "soak-rated" in any window; "soak-paused" is paused and resumed by a fault.
  "soak-account": {
    payload: accountWork,
    queue: "soak-limited",
    concurrency: { limit: 1, key: (payload) => payload.account },
    ...RETRIED,
    handler: traced(async ({ sleepMs, failTimes }, ctx) => {
      await sleep(sleepMs, ctx.signal);
      if (ctx.attempt <= failTimes) throw new Error(`planned failure ${ctx.attempt} of ${failTimes}`);
      return undefined;
    }),
  },
  "soak-rated": {
    payload: work,
    queue: "soak-rated",
    ...RETRIED,
    handler: traced(async ({ sleepMs }, ctx) => {
      await sleep(Math.min(sleepMs, 100), ctx.signal);
      return undefined;
    }),
  },
  "soak-pausable": {
    payload: work,
    queue: "soak-paused",
    ...RETRIED,
    handler: traced(async ({ sleepMs }, ctx) => {
      await sleep(sleepMs, ctx.signal);
      return undefined;
    }),
  },
  // The workflow: a transactional step (its effect row exactly once), an outside step, maybe a sleep, maybe a wait for
  // the event "approve" (sent in the enqueue's transaction, in a later one, or never), maybe children (soak-plain, the
  // first failing once) waited for all, and maybe a planned failure after every step (the next attempt replays them).
  "soak-workflow": {
    payload: workflowPlan,
    ...RETRIED,
    handler: traced(async ({ sleepMs, waitMs, children, waitChildren, failTimes }, ctx) => {
      await ctx.step.transaction("effect", async (tx) => {
        await tx.$executeRaw`INSERT INTO soak_effects (task_id, attempt, pid) VALUES (${ctx.task.id}, ${ctx.attempt}, ${process.pid})`;
      });
      await ctx.step.run("outside", (info) => ({ key: info.key }));
      if (sleepMs > 0) await ctx.step.sleep("nap", sleepMs);
      const event = waitMs > 0 ? await ctx.step.waitForEvent<{ token: string }>("approval", { event: "approve", timeoutMs: waitMs }) : undefined;
      let ended = 0;
      if (children > 0) {
        const started = await ctx.step.startChildren("fan-out", (tx) =>
          Promise.all(Array.from({ length: children }, (_, i) => tx.task.enqueue("soak-plain", { sleepMs: 20, failTimes: i === 0 ? 1 : 0 }))),
        );
        ended = waitChildren
          ? (await ctx.step.waitForChildren("fan-in", started, { recheckMs: 5_000 })).filter((child) => child.status === "succeeded").length
          : started.length;
      }
      if (ctx.attempt <= failTimes) throw new Error(`planned failure ${ctx.attempt} of ${failTimes}`);
      return { event: event && !event.timedOut ? event.payload.token : null, waited: event !== undefined, children: ended };
    }),
  },
  "soak-doomed": {
    payload: z.object({ reason: z.string() }),
    maxAttempts: 3,
    // Within the serverless soak's passes (25 s), like every other soak task.
    timeoutMs: 20_000,
    backoff: { baseMs: 50, factor: 2, maxMs: 500 },
    handler: traced(async ({ reason }) => {
      throw new Error(reason);
    }),
  },
});

export type SoakTaskName = keyof typeof soakTasks;

/** The soak's queue limits, declared by every worker; the checker holds the handlers' runs to them. */
export const SOAK_LIMITS = { queue: 3, perAccount: 1, rate: { starts: 3, perMs: 1000 } } as const;
export const SOAK_ACCOUNTS = ["acme", "globex", "initech", "umbrella", "hooli"] as const;
export const soakQueueLimits = { "soak-limited": { concurrency: SOAK_LIMITS.queue }, "soak-rated": { rateLimit: SOAK_LIMITS.rate } };
/** The queue the pause fault pauses and resumes. */
export const SOAK_PAUSED_QUEUE = "soak-paused";
