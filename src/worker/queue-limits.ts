// The limits a worker enforces, from its declarations: `queueLimits` (a queue's concurrency and rate of starts) and
// each handled task's `concurrency` (per key). Checked once at createWorker(), with errors that name the value and fix.

import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { queueNameProblem } from "../names.js";
import { MAX_CONCURRENCY_LIMIT, type ClaimLimits, type QueueDeclaration, type QueueLimits, type RateLimit } from "../store/queue-controls.js";
import { valueText } from "../value-text.js";

/** A queue's limits as declared on the worker (`queueLimits: { reports: { concurrency: 5 } }`). */
export interface QueueLimitOptions {
  /**
   * At most this many tasks of the queue running at once over every worker, 1 to 1,000,000. Default: no limit.
   * A claimed task holds its slot from its claim (also while it waits in a worker for a run slot) until its outcome is
   * written or its lease is recovered.
   */
  concurrency?: number;
  /**
   * At most `starts` claims of the queue's tasks in any window of `perMs` ms (a sliding window), over every worker.
   * Default: no limit. `starts` 1 to 1,000,000; `perMs` 1 to 86,400,000 (a day).
   */
  rateLimit?: RateLimit;
}

/** The most milliseconds a rate window may span. */
const MAX_RATE_WINDOW_MS = 86_400_000;

/** Checks `queueLimits` and merges it with the handled tasks' `concurrency`, for the queues served. */
export function resolveQueueLimits(queueLimits: unknown, tasks: TaskRegistry, names: readonly string[], queues: readonly string[]): ClaimLimits {
  const declared = checkQueueLimits(queueLimits);
  const limits: Record<string, QueueLimits> = {};
  for (const queue of queues) {
    const own = declared[queue];
    const perTask: Record<string, number> = {};
    for (const name of names) {
      const definition = tasks[name]!;
      if ((definition.queue ?? "default") === queue && definition.concurrency !== undefined) perTask[name] = definition.concurrency.limit;
    }
    if (own === undefined && Object.keys(perTask).length === 0) continue;
    limits[queue] = { ...own, ...(Object.keys(perTask).length > 0 && { tasks: perTask }) };
  }
  return limits;
}

/**
 * The rows syncQueues writes for the queues whose limits `queueLimits` declares (a queue limited only by its tasks'
 * concurrency per key has nothing to write: its row, if any, is left as it is).
 */
export function queueDeclarations(limits: ClaimLimits): QueueDeclaration[] {
  return Object.entries(limits)
    .filter(([, own]) => own.concurrency !== undefined || own.rateLimit !== undefined)
    .map(([queue, own]) => ({ queue, concurrency: own.concurrency ?? null, rateLimit: own.rateLimit ?? null }));
}

function checkQueueLimits(value: unknown): Record<string, QueueLimitOptions> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TaskQueueConfigError("queueLimits", `must map queue names to limits, e.g. { reports: { concurrency: 5 } }, got ${valueText(value)}.`);
  }
  const checked: Record<string, QueueLimitOptions> = {};
  for (const [queue, limits] of Object.entries(value as Record<string, unknown>)) {
    const problem = queueNameProblem(queue);
    if (problem) throw new TaskQueueConfigError("queueLimits", `queue ${JSON.stringify(queue)}: ${problem}.`);
    if (typeof limits !== "object" || limits === null) {
      throw new TaskQueueConfigError("queueLimits", `queue "${queue}": expected { concurrency?, rateLimit? }, got ${valueText(limits)}.`);
    }
    const { concurrency, rateLimit, ...rest } = limits as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new TaskQueueConfigError("queueLimits", `queue "${queue}": unknown option ${unknown.map((k) => `"${k}"`).join(", ")}; use concurrency or rateLimit.`);
    const own: QueueLimitOptions = {};
    if (concurrency !== undefined) own.concurrency = integer(queue, "concurrency", concurrency, MAX_CONCURRENCY_LIMIT);
    if (rateLimit !== undefined) {
      if (typeof rateLimit !== "object" || rateLimit === null) {
        throw new TaskQueueConfigError(
          "queueLimits",
          `queue "${queue}": rateLimit must be { starts, perMs }, e.g. { starts: 100, perMs: 60000 }, got ${valueText(rateLimit)}.`,
        );
      }
      const rate = rateLimit as { starts?: unknown; perMs?: unknown };
      own.rateLimit = {
        starts: integer(queue, "rateLimit.starts", rate.starts, MAX_CONCURRENCY_LIMIT),
        perMs: integer(queue, "rateLimit.perMs", rate.perMs, MAX_RATE_WINDOW_MS),
      };
    }
    checked[queue] = own;
  }
  return checked;
}

function integer(queue: string, option: string, value: unknown, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new TaskQueueConfigError("queueLimits", `queue "${queue}": ${option} must be an integer from 1 to ${max}, got ${valueText(value)}.`);
  }
  return value;
}
