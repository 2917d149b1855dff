// What enqueue hands the store (checked rows) and what the store hands back (one row per task, in input order).

/** A row ready to insert, checked by enqueue/prepare.ts. `json` is the exact JSON the worker will parse. */
export interface PreparedTask {
  id: string;
  name: string;
  queue: string;
  json: string;
  priority: number;
  delayMs: number;
  runAt: Date | null;
  maxAttempts: number;
  key: string | null;
  /** The task's concurrency key (its definition's `concurrency.key` of the payload); absent or null without one. */
  concurrencyKey?: string | null;
  /**
   * The W3C trace context of the enqueue's span, as stored in the trace_context column (see telemetry/trace-context.ts);
   * absent or null when nobody traces.
   */
  traceContext?: string | null;
}

/**
 * The task that now stands for one input: new, or the existing one with the same key. `id` is null when the key is
 * held by an existing task the insert statement does not return: on PostgreSQL, one that committed after the
 * statement's snapshot was taken; on MySQL/MariaDB and SQLite, every existing one (their inserts return only the rows
 * they wrote). EnqueueStore.tasksByKeys finds it.
 */
export interface InsertedTask {
  /** Position of the input it answers. */
  i: number;
  id: string | null;
  name: string | null;
  queue: string | null;
  status: string | null;
  key: string | null;
  /** run_at as Unix milliseconds (database clock). */
  runAtMs: number | null;
  /** False when a task with the same key already existed. */
  created: boolean;
  /** True when the task is new and due now: its wake-up leaves after the commit. */
  due: boolean;
  /**
   * For a new task due later, how long after the insert statement started it is due, by the database's clock, where
   * the dialect tells (PostgreSQL, whose run_at counts from the transaction's start); else absent or null.
   */
  dueInMs?: number | null;
  /**
   * For a new task due later, when it is due on this process's monotonic clock (performance.now()), where the dialect
   * reads it after the insert (MySQL: the time left by the database clock, asked by a statement sent at a known
   * moment); it wins over dueInMs. Errs early by that statement's way to the server only, not by the insert's.
   */
  dueAt?: number;
}

/**
 * One insert, as a Prisma raw request that has not been sent yet: awaited (or `then`ed) it runs through the client it
 * was made for; passed to a batch `$transaction([...])`, it joins that batch. `read` turns its result into one
 * InsertedTask per input: at once from the statement's own rows (PostgreSQL's INSERT … RETURNING), or, where an insert
 * returns no rows (MySQL), with one more statement through the same client after the insert ran (a promise).
 */
export interface InsertRequest {
  request: PromiseLike<unknown> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };
  read(result: unknown): InsertedTask[] | PromiseLike<InsertedTask[]>;
}
