// The tasks of the queue-control process tests, and their log: one JSON line per handler start and end (with the
// task's queue, key and the database time of its claim), appended synchronously to a file per process, so a SIGKILL
// loses no event.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";

export interface ControlEvent {
  id: string;
  e: "start" | "end";
  queue: string;
  key: string | null;
  worker: string;
  /** The claim's time by the database clock (the task's updated_at as claimed). */
  claimedAt: number;
  /** How long the handler runs. */
  ms: number;
  t: number;
}

function log(event: Omit<ControlEvent, "t" | "worker">): void {
  const dir = process.env.CONTROL_LOG!;
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify({ ...event, worker: process.env.CONTROL_WORKER ?? "in-process", t: Date.now() })}\n`);
}

/** Every event of every process, in time order; a torn last line (a SIGKILL mid-write) is skipped. */
export function readControlLog(dir: string): ControlEvent[] {
  if (!existsSync(dir)) return [];
  const events: ControlEvent[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      try {
        if (line) events.push(JSON.parse(line) as ControlEvent);
      } catch {
        // a torn line
      }
    }
  }
  return events.sort((a, b) => a.t - b.t);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))), { once: true });
  });
}

const work =
  (queue: string) =>
  async ({ ms, account }: { ms: number; account?: string }, ctx: { task: { id: string; updatedAt: Date; concurrencyKey: string | null }; signal: AbortSignal }) => {
    const event = { id: ctx.task.id, queue, key: ctx.task.concurrencyKey, claimedAt: ctx.task.updatedAt.getTime(), ms };
    log({ ...event, e: "start" });
    await sleep(ms, ctx.signal);
    log({ ...event, e: "end" });
    return account ?? null;
  };

export const controlTasks = defineTasks({
  /** At most one per account at once (its concurrency key), in the queue "limited" (at most QUEUE_LIMIT at once). */
  account: {
    payload: z.object({ ms: z.number().int(), account: z.string() }),
    queue: "limited",
    concurrency: { limit: 1, key: (payload) => payload.account },
    handler: work("limited"),
  },
  /** In the queue "rated": at most RATE.starts starts in any RATE.perMs. */
  rated: { payload: z.object({ ms: z.number().int() }), queue: "rated", handler: work("rated") },
  /** In the queue "free": no limit, paused and resumed by the tests. */
  free: { payload: z.object({ ms: z.number().int() }), queue: "free", handler: work("free") },
});

/** The queue-wide limits every worker of these tests declares. */
export const QUEUE_LIMIT = 3;
export const RATE = { starts: 4, perMs: 1000 };
export const controlQueueLimits = { limited: { concurrency: QUEUE_LIMIT }, rated: { rateLimit: RATE } };
