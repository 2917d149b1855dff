// What the extension tells listeners once enqueues commit: one record per enqueue call, built only when someone
// listens (the testing helpers of prisma-task-queue/testing do). A rolled-back transaction tells nothing.

import type { Logger } from "../logger.js";
import type { InsertedTask, PreparedTask } from "../store/enqueue-rows.js";

/** The rows one enqueue or enqueueMany call wrote: its checked inputs and what the insert answered, by position. */
export interface EnqueueBatch {
  prepared: readonly PreparedTask[];
  inserted: readonly InsertedTask[];
}

/**
 * One committed enqueue call. `id`, `runAt` and `created` describe the row that stands for the call (an existing task
 * when a dedupe key matched: then `created` is false); the other fields are the call's, after the task definition's
 * defaults: what it asked for.
 */
export interface CommittedEnqueue {
  id: string;
  name: string;
  /** The payload as stored: the call's payload after a JSON round trip. */
  payload: unknown;
  queue: string;
  key: string | null;
  priority: number;
  maxAttempts: number;
  /** The delay the call asked for, in ms; 0 when it gave none (or gave runAt). */
  delayMs: number;
  /** When the task becomes runnable (database clock). */
  runAt: Date;
  /** False when a task with the same key already existed and this call returned it instead of writing a row. */
  created: boolean;
  /** True when the task was new and due at once (its wake-up left after the commit). */
  due: boolean;
}

export type CommitListener = (enqueues: readonly CommittedEnqueue[]) => void;

/** The listeners of one extended client. Listeners are called synchronously, before the committing call returns. */
export class CommitListeners {
  private readonly listeners = new Set<CommitListener>();

  constructor(private readonly logger: Logger) {}

  /** Calls `listener` with every batch of enqueues committed from now on; returns the function that stops it. */
  listen(listener: CommitListener): () => void {
    const entry: CommitListener = (enqueues) => listener(enqueues);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  /** Tells every listener about enqueues that just committed. Never throws at the committing caller. */
  committed(batches: readonly EnqueueBatch[]): void {
    if (this.listeners.size === 0 || batches.length === 0) return;
    const enqueues = batches.flatMap(recordsOf);
    if (enqueues.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(enqueues);
      } catch (error) {
        this.logger.error("a listener of committed enqueues threw; the enqueues are committed all the same", { error: String(error) });
      }
    }
  }
}

function recordsOf(batch: EnqueueBatch): CommittedEnqueue[] {
  return batch.inserted.map((row) => {
    const call = batch.prepared[row.i]!;
    return {
      id: row.id!,
      name: call.name,
      payload: JSON.parse(call.json) as unknown,
      queue: call.queue,
      key: call.key,
      priority: call.priority,
      maxAttempts: call.maxAttempts,
      delayMs: call.delayMs,
      runAt: new Date(row.runAtMs!),
      created: row.created,
      due: row.due,
    };
  });
}
