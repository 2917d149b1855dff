// What enqueue returns for each task, built from the insert statement's rows.

import type { InsertedTask, PreparedTask } from "../store/enqueue-rows.js";
import type { TaskStatus } from "../store/task-status.js";
import type { Wakeup } from "./transaction-scopes.js";

/** The task that an enqueue call stands for. */
export interface EnqueuedTask<Name extends string = string> {
  id: string;
  name: Name;
  queue: string;
  status: TaskStatus;
  key: string | null;
  /** When it becomes runnable (database clock). */
  runAt: Date;
  /** False when a task with the same key already existed: this is that task, and no new row was written. */
  created: boolean;
}

export function toEnqueuedTask(row: InsertedTask): EnqueuedTask {
  return {
    id: row.id!,
    name: row.name!,
    queue: row.queue!,
    status: row.status as TaskStatus,
    key: row.key,
    runAt: new Date(row.runAtMs!),
    created: row.created,
  };
}

/** When an enqueue's statement was sent, on this process's monotonic clock and on its wall clock. */
export interface SentAt {
  /** performance.now() */
  at: number;
  /** Date.now() */
  wallMs: number;
}

export function sentNow(): SentAt {
  return { at: performance.now(), wallMs: Date.now() };
}

/**
 * The wake-ups these rows need: new tasks that are due now, and new tasks due later, with when (`dueAt`, on this
 * process's monotonic clock), counted from when the insert was `sent`: the time left from the statement's start on the
 * database's clock, where the dialect tells it; else the delay the call asked for, or its runAt as this host's clock
 * sees it. The statement starts a little after it is sent, so the count errs early, which the worker's not-due retries
 * absorb; a late count would make the task late. `prepared` are the inputs the rows answer, by position.
 */
export function wakeupsOf(rows: readonly InsertedTask[], prepared: readonly PreparedTask[], sent: SentAt): Wakeup[] {
  const wakeups: Wakeup[] = [];
  for (const row of rows) {
    if (row.due) {
      wakeups.push({ id: row.id!, queue: row.queue! });
      continue;
    }
    if (!row.created) continue;
    if (typeof row.dueAt === "number") {
      wakeups.push({ id: row.id!, queue: row.queue!, dueAt: row.dueAt });
      continue;
    }
    if (typeof row.dueInMs === "number") {
      wakeups.push({ id: row.id!, queue: row.queue!, dueAt: sent.at + row.dueInMs });
      continue;
    }
    const call = prepared[row.i];
    if (!call) continue;
    const inMs = call.runAt ? call.runAt.getTime() - sent.wallMs : call.delayMs;
    wakeups.push({ id: row.id!, queue: row.queue!, dueAt: sent.at + inMs });
  }
  return wakeups;
}
