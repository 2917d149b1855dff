// Records how runs ended: successes and failures are each batched into one statement, retried while the database
// is unreachable (until the lease would have expired anyway), logged, and dead tasks announced on the dead-letter exchange.

import { backoffDelayMs } from "../backoff.js";
import type { TaskDefinition, TaskRecord } from "../define-tasks.js";
import type { Logger } from "../logger.js";
import { deadTaskNotification, type DeadTaskNotification } from "../wakeups/dead-task-notification.js";
import type { WorkerStore, WorkflowStore } from "../store/store.js";
import type { Completion, FailedTask, Failure, WakeupTarget } from "../store/task-writes.js";
import type { Suspension } from "../store/steps.js";
import { errorMessage, errorText } from "../error-text.js";
import { resultJson } from "./result-json.js";
import { StatementBatcher } from "./statement-batcher.js";
import { SuccessTallies } from "./success-tallies.js";
import { runFields } from "./task-logger.js";
import { runScopeOf } from "../telemetry/telemetry.js";

/** Publishes dead-task notifications; rejects when the broker did not confirm. */
interface DeadLetterSink {
  notifyDead(notification: DeadTaskNotification): Promise<void>;
}

interface OutcomeWriterOptions {
  store: WorkerStore & Pick<WorkflowStore, "suspend" | "wakeParent">;
  /** Where successes are written, when not `store` (one whose commits do not wait for the disk flush). */
  completions?: WorkerStore;
  owner: string;
  leaseMs: number;
  logger: Logger;
  /** Absent without a broker: dead tasks are then only logged. */
  deadLetters: DeadLetterSink | undefined;
  /**
   * Told of a task put back to pending for a retry, or by a workflow's sleep or wait, and when it is due
   * (performance.now() milliseconds).
   */
  retryScheduled?(task: WakeupTarget, dueAt: number): void;
  /**
   * Told of a workflow that its child's end made due now (the writer wakes the parent in the database once the child's
   * success or death is written): send it a wake-up. Without it the parent is only due, for a later claim or poll.
   */
  parentWoken?(parent: WakeupTarget): void;
}

const GAVE_UP = Symbol("gave up");
const UNCERTAIN = "task outcome not written again: the connection dropped during the first write, which most likely committed " + "(else the lease was lost meanwhile)";

export class OutcomeWriter {
  private readonly successes: StatementBatcher<Completion, boolean>;
  private readonly failures: StatementBatcher<Failure, FailedTask | undefined>;
  private readonly deletions: StatementBatcher<{ id: string; attempt: number }, boolean>;
  private readonly notifications = new Set<Promise<void>>();
  /** Parents being made due by their children's ends. */
  private readonly parentWakes = new Set<Promise<void>>();
  /** The successes counted for the scaling signal, written every second or so rather than with each completion. */
  private readonly tallies: SuccessTallies;

  constructor(private readonly options: OutcomeWriterOptions) {
    const { store, owner } = options;
    const completions = options.completions ?? store;
    this.tallies = new SuccessTallies(store, owner, options.logger);
    this.successes = new StatementBatcher(async (items) => {
      const marked = new Set(await completions.complete(owner, items));
      return items.map((item) => marked.has(item.id));
    });
    this.deletions = new StatementBatcher(async (items) => {
      const deleted = new Set(
        await completions.deleteSucceeded(
          owner,
          items.map((item) => item.id),
          items.map((item) => item.attempt),
        ),
      );
      return items.map((item) => deleted.has(item.id));
    });
    this.failures = new StatementBatcher(async (items) => {
      const byId = new Map((await store.fail(owner, items)).map((row) => [row.id, row]));
      return items.map((item) => byId.get(item.id));
    });
  }

  /**
   * Marks the task succeeded with `value` as its result, or, with `deleteIfNoResult` and no result (undefined or null),
   * deletes its row. False when the lease was lost (or the write gave up).
   */
  succeed(task: TaskRecord, value: unknown, startedAt: number, deleteIfNoResult = false): Promise<boolean> {
    const { json, problem } = resultJson(value);
    if (problem) this.options.logger.warn("task result not storable, stored null", { ...runFields(task), problem });
    const deletes = deleteIfNoResult && json === "null";
    // Every write names the run (its attempt): retried after an unclear error, it cannot land on a later run of the task.
    const attempt = task.attempts;
    const write = deletes
      ? () => this.deletions.add({ id: task.id, attempt })
      : () => this.successes.add({ id: task.id, attempt, resultJson: json } satisfies Completion);
    // The first write on the happy path is a plain promise chain: one success per task, thousands a second.
    return write().then(
      (marked) => this.succeeded(task, marked, false, startedAt, deletes),
      async (error: unknown) => {
        const { value: marked, retried } = await this.persist(task, "success", write, error);
        return marked !== GAVE_UP && this.succeeded(task, marked, retried, startedAt, deletes);
      },
    );
  }

  private succeeded(task: TaskRecord, marked: boolean, retried: boolean, startedAt: number, deleted: boolean): boolean {
    const log = this.options.logger;
    if (marked) {
      if (task.parentId) this.wakeParent(task);
      this.tallies.count(task.queue, Date.now() - startedAt);
      runScopeOf(task)?.end("succeeded");
      const fields = { ...runFields(task), durationMs: Date.now() - startedAt };
      log.info("task succeeded", deleted ? { ...fields, deleted: true } : fields);
    } else if (retried) {
      log.info(UNCERTAIN, { ...runFields(task), outcome: "success" });
    } else {
      log.warn("task result discarded: this worker no longer holds its lease", runFields(task));
    }
    return marked;
  }

  /**
   * Records a failed run: back to pending after the task's backoff, or dead when attempts are used up or
   * `finalReason` is given ("unrecoverable" is detected here from the thrown value).
   */
  async fail(task: TaskRecord, definition: TaskDefinition | undefined, thrown: unknown, finalReason?: string): Promise<FailedTask | undefined> {
    const reason = finalReason ?? (isUnrecoverable(thrown) ? "unrecoverable" : null);
    const delayMs = backoffDelayMs(definition?.backoff, task.attempts);
    const failure: Failure = { id: task.id, attempt: task.attempts, error: errorText(thrown), delayMs, finalReason: reason };
    const { value: row, retried } = await this.persist(task, "failure", () => this.failures.add(failure));
    const writtenAt = performance.now();
    if (row === GAVE_UP) return undefined;
    if (row !== undefined) runScopeOf(task)?.end(row.status === "pending" ? "retry" : "dead", thrown);
    const log = this.options.logger;
    const fields = { ...runFields(task), error: errorMessage(thrown) };
    if (row === undefined && retried) {
      log.info(UNCERTAIN, { ...fields, outcome: "failure" });
    } else if (row === undefined) {
      log.warn("task failure not recorded: this worker no longer holds its lease", fields);
    } else if (row.status === "pending") {
      log.warn("task failed, retry scheduled", { ...fields, maxAttempts: task.maxAttempts, delayMs });
      // The database set run_at to its now() + delayMs before this answer came back, so this is never early.
      this.options.retryScheduled?.(row, writtenAt + delayMs);
    } else {
      log.error("task dead", { ...fields, reason: row.reason });
      if (task.parentId) this.wakeParent(task);
      this.announce(row);
    }
    return row;
  }

  /**
   * Hands a sleeping or waiting workflow's task back to the queue (its attempt given back), and tells when it is due.
   * False when the lease was lost (or the write gave up).
   */
  async suspend(task: TaskRecord, suspension: Suspension): Promise<boolean> {
    // A wait for children handed its task back itself (its suspension holds only if no child ended meanwhile).
    const write = () => (suspension.written ? Promise.resolve(suspension.written) : this.options.store.suspend(this.options.owner, suspension));
    const { value: row, retried } = await this.persist(task, "suspension", write);
    const writtenAt = performance.now();
    if (row === GAVE_UP) return false;
    const log = this.options.logger;
    if (row === undefined) {
      if (retried) log.info(UNCERTAIN, { ...runFields(task), outcome: "suspension" });
      else log.warn("task suspension not recorded: this worker no longer holds its lease", runFields(task));
      return false;
    }
    runScopeOf(task)?.end("suspended");
    log.info("task suspended", { ...runFields(task), step: suspension.seq, dueInMs: row.dueInMs, ...(suspension.event !== undefined && { event: suspension.event }) });
    if (row.dueInMs !== null) this.options.retryScheduled?.(row, writtenAt + row.dueInMs);
    return true;
  }

  /**
   * A success written by the run itself (a transactional task's, in its own transaction): counted for the scaling
   * signal, and a child's parent told.
   */
  committedSuccess(task: TaskRecord, startedAt: number): void {
    this.tallies.count(task.queue, Date.now() - startedAt);
    if (task.parentId) this.wakeParent(task);
  }

  /**
   * Resolves when every outcome handed over so far is written, every dead-letter notification and parent's wake settled, and the
   * successes counted so far written to the tallies (or kept, when that write failed).
   */
  async flush(): Promise<void> {
    await Promise.all([this.successes.flush(), this.deletions.flush(), this.failures.flush()]);
    while (this.notifications.size > 0) await Promise.all([...this.notifications]);
    while (this.parentWakes.size > 0) await Promise.all([...this.parentWakes]);
    await this.tallies.write();
  }

  /** A child's end is written: its parent, when it waits for its children, is due now (its recheck catches a failure here). */
  private wakeParent(child: TaskRecord): void {
    const { store, logger } = this.options;
    const waking = store.wakeParent(child.parentId!).then(
      (parent) => {
        if (parent) this.options.parentWoken?.(parent);
      },
      (error: unknown) =>
        logger.warn("could not wake the workflow that may wait for this child; it looks again at its recheck", {
          taskId: child.id,
          parentId: child.parentId,
          error: errorMessage(error),
        }),
    );
    this.parentWakes.add(waking);
    void waking.finally(() => this.parentWakes.delete(waking));
  }

  private announce(row: FailedTask): void {
    const { deadLetters, logger } = this.options;
    // Only RabbitMQ carries dead-task notifications (its dead-letter queue); without it there is nothing to send, and
    // the task is dead in the table, where status and the dashboard show it.
    if (!deadLetters) return;
    const sending = deadLetters.notifyDead(deadTaskNotification(row, "max-attempts")).then(
      () => logger.debug("dead-letter notification published", { taskId: row.id }),
      (error: unknown) =>
        logger.warn("dead-letter notification not published; the task is dead in the database all the same", {
          taskId: row.id,
          error: errorMessage(error),
        }),
    );
    this.notifications.add(sending);
    void sending.finally(() => this.notifications.delete(sending));
  }

  /**
   * Runs `write` until it succeeds or the lease would have expired; GAVE_UP (logged) when it gave up. `retried` tells
   * that an earlier try failed: that try may have committed before its connection dropped, so a guarded write that
   * then changes nothing most likely found its own earlier write, not a lost lease. `firstError`: the caller's own
   * first try already failed with it, so this starts with the pause before the second.
   */
  private async persist<T>(task: TaskRecord, what: string, write: () => Promise<T>, firstError?: unknown): Promise<{ value: T | typeof GAVE_UP; retried: boolean }> {
    const deadline = Date.now() + this.options.leaseMs;
    for (let attempt = 1; ; attempt++) {
      let error: unknown = firstError;
      if (attempt > 1 || firstError === undefined) {
        try {
          return { value: await write(), retried: attempt > 1 };
        } catch (thrown) {
          error = thrown;
        }
      }
      const fields = { ...runFields(task), error: errorMessage(error) };
      if (Date.now() >= deadline) {
        this.options.logger.error(`could not record task ${what}; the cleaner recovers the task when its lease expires`, fields);
        return { value: GAVE_UP, retried: true };
      }
      if (attempt === 1 || attempt % 10 === 0) this.options.logger.warn(`recording task ${what} failed, retrying`, { ...fields, attempt });
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * 2 ** attempt)));
    }
  }
}

function isUnrecoverable(thrown: unknown): boolean {
  return (thrown as { code?: unknown } | null)?.code === "TASK_UNRECOVERABLE";
}
