// What enqueue returns for each task, built from the insert statement's rows.

import type { InsertedTask } from "../store/enqueue-rows.js";
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

/** The wake-ups these rows need: new tasks that are already due. Delayed ones wait for the cleaner. */
export function wakeupsOf(rows: readonly InsertedTask[]): Wakeup[] {
  return rows.filter((row) => row.due).map((row) => ({ id: row.id!, queue: row.queue! }));
}
