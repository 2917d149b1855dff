// A task row as the store returns it and a handler receives it: camelCase fields, Dates, JSON already parsed.

import type { TaskErrorEntry } from "./error-history.js";
import type { TaskStatus } from "./task-status.js";

/** A task row as the worker hands it to a handler. */
export interface TaskRecord {
  id: string;
  name: string;
  queue: string;
  payload: unknown;
  status: TaskStatus;
  priority: number;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** The error of the latest failed attempt while the task may still run again or is dead; null once it succeeds. */
  lastError: string | null;
  /** The last failed attempts (at most 10), oldest first; kept after a success, as history. */
  errors: TaskErrorEntry[];
  result: unknown;
  key: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  publishedAt: Date | null;
  /** The worker that last completed or failed the task (lease_owner is cleared on every way out of running). */
  finishedBy: string | null;
  /** The task's concurrency key (its definition's `concurrency.key` of the payload, at enqueue); null without one. */
  concurrencyKey: string | null;
  /**
   * The W3C trace context of the span that enqueued the task (`{"traceparent":…}` JSON, with `tracestate` when there
   * is one), which every run's span links to; null when the enqueue was not traced.
   */
  traceContext: string | null;
  /** The workflow that started this task as its child (ctx.step.startChildren); null for a task nobody started so. */
  parentId: string | null;
}
