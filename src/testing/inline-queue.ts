// inlineQueue(): in a test, every task that commits through the app's client runs right after its COMMIT, in the
// test's process, through the real claim and outcome writes of the worker; drain() waits for the runs and throws what
// failed. Delayed tasks and retries wait until drain({ scheduled: true }) runs them: nothing here depends on the clock.

import { randomBytes } from "node:crypto";
import type { TaskRegistry } from "../define-tasks.js";
import { openStore } from "../dialects/index.js";
import type { CommittedEnqueue } from "../enqueue/committed-enqueues.js";
import { TaskQueueConfigError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import { databaseAdvice } from "../database-advice.js";
import { redactUrl } from "../redact-url.js";
import type { TaskTable } from "../store/task-table.js";
import { resolveWorkerOptions } from "../worker/worker-options.js";
import { EnqueueRecorder } from "./enqueue-recorder.js";
import { runFailed, type InlineRun } from "./inline-run.js";
import { InlineRunner, type RunTarget } from "./inline-runner.js";
import { InlineTaskError } from "./testing-errors.js";

/** Options of inlineQueue(). */
export interface InlineQueueOptions<Tasks extends TaskRegistry = TaskRegistry> {
  /**
   * The handlers to run. Default: the registry the client was extended with. Pass another registry of the same task
   * names to run a test double instead of a handler; tasks without a handler here are recorded but never run.
   */
  tasks?: Tasks;
  /**
   * Where to claim and complete tasks, on connections of the queue's own (closed by close()). Default: through the
   * app's client on PostgreSQL and MySQL; on SQLite, a connection of its own to the file the client opened, because
   * Prisma's SQLite adapter runs every statement on one connection, where a claim could land inside a transaction your
   * code holds open (and vanish with its rollback). Needed for SQLite in memory only if you want that isolation.
   */
  databaseUrl?: string;
  /** Where the runs log, as a worker logs. Default: nothing is logged (drain() reports failures). */
  logger?: Logger;
  /**
   * How long a claim holds before a cleaner may take the task back, in ms. Default 30000; the worker's heartbeat extends
   * it while the handler runs, as in production.
   */
  leaseMs?: number;
}

const OPTION_NAMES = new Set(["tasks", "databaseUrl", "logger", "leaseMs"]);

export class InlineQueue<Tasks extends TaskRegistry = TaskRegistry> extends EnqueueRecorder<Tasks> {
  private runner: InlineRunner | undefined;
  /** Commits recorded before the runner was ready. */
  private early: RunTarget[] = [];
  /** Tasks recorded and not yet finished: delayed, or pending again after a failed run. */
  private readonly waiting = new Map<string, RunTarget>();
  private readonly history: InlineRun[] = [];
  private store: Store | undefined;
  private ownStore = false;
  private closing: Promise<void> | undefined;

  /** Use inlineQueue(), which also opens it: waits until the queue can claim. */
  constructor(
    private readonly prisma: unknown,
    private readonly options: InlineQueueOptions<Tasks>,
  ) {
    super(prisma, "inlineQueue()");
  }

  /** Opens the store, resolves the handlers and checks the task table. Closes what it opened when it throws. */
  async open(): Promise<void> {
    const { options, hook } = this;
    try {
      if (options.databaseUrl !== undefined) {
        this.store = openStore(options.databaseUrl, { table: hook.table }, "databaseUrl");
        this.ownStore = true;
      } else {
        const choice = await hook.workerStore();
        this.store = choice.store;
        this.ownStore = choice.owned;
      }
      const resolved = resolveWorkerOptions({
        tasks: options.tasks ?? hook.tasks,
        store: this.store,
        prisma: this.prisma,
        logger: options.logger ?? silentLogger,
        leaseMs: options.leaseMs,
        workerId: `inline:${randomBytes(4).toString("hex")}`,
      });
      await checkTable(this.store, hook.table, options.databaseUrl);
      this.runner = new InlineRunner(this.store, resolved);
    } catch (error) {
      await this.close();
      throw error;
    }
    const early = this.early;
    this.early = [];
    this.runner.run(early);
  }

  protected override committed(enqueues: readonly CommittedEnqueue[]): void {
    super.committed(enqueues);
    const due: RunTarget[] = [];
    for (const enqueue of enqueues) {
      if (!enqueue.created) continue; // its key matched an existing task: that task runs (or ran) as its own
      const target = { id: enqueue.id, name: enqueue.name, queue: enqueue.queue };
      if (enqueue.due) due.push(target);
      else this.waiting.set(target.id, target);
    }
    if (due.length === 0) return;
    if (this.runner) this.runner.run(due);
    else this.early.push(...due);
  }

  /**
   * Waits until every task committed so far has run (and the tasks those runs enqueued, and so on), then returns the
   * runs settled since the last drain, in the order they were claimed (a task before the tasks its handler enqueued). Throws InlineTaskError when any of them did not succeed: its message names each
   * task and what it threw, `failures` holds the runs and `cause` the first thrown value.
   *
   * With `scheduled: true` it first makes due now, and runs, the recorded tasks still waiting for a later time: delayed
   * ones, and those pending again after a failed run (one more attempt each per drain).
   */
  async drain(options: { scheduled?: boolean } = {}): Promise<InlineRun[]> {
    const known = typeof options === "object" && options !== null && Object.keys(options).every((key) => key === "scheduled");
    if (!known || (options.scheduled !== undefined && typeof options.scheduled !== "boolean")) {
      throw new TaskQueueConfigError("drain() options", `expected { scheduled?: boolean }, got ${JSON.stringify(options)}.`);
    }
    const runner = this.requireOpen("drain()");
    await runner.idle();
    if (options.scheduled) {
      await this.runWaiting(runner);
      await runner.idle();
    }
    const { runs, problems } = runner.take();
    this.history.push(...runs);
    for (const run of runs) {
      if (run.status === "pending") this.waiting.set(run.id, { id: run.id, name: run.name, queue: run.task.queue });
    }
    const failures = runs.filter(runFailed);
    if (failures.length > 0 || problems.length > 0) throw new InlineTaskError(failures, problems);
    return runs;
  }

  /** Every run drained so far, oldest first (failed ones included). */
  runs(): InlineRun[] {
    return [...this.history];
  }

  /** Stops recording, waits for the runs in hand (without reporting them: drain() does), and closes what it opened. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stop();
      await this.runner?.close();
      if (this.ownStore) await this.store?.close();
    })();
    return this.closing;
  }

  /** Makes the waiting tasks due now (as `task-runner run-now` does) and hands those still pending to the runner. */
  private async runWaiting(runner: InlineRunner): Promise<void> {
    // Tasks the runner has no handler for stay as they are: making them due would only hand them to another worker.
    const waiting = [...this.waiting.values()].filter((target) => runner.handles(target.name));
    for (const target of waiting) this.waiting.delete(target.id);
    const due: RunTarget[] = [];
    for (const target of waiting) {
      const made = await this.store!.runTaskNow(target.id);
      if (made.length > 0) due.push(target);
    }
    runner.run(due);
  }

  private requireOpen(where: string): InlineRunner {
    if (this.closing) throw new TaskQueueConfigError(where, "this inline queue is closed; create a new one with inlineQueue().");
    if (!this.runner) throw new TaskQueueConfigError(where, "this inline queue was not opened; create it with await inlineQueue(prisma).");
    return this.runner;
  }
}

/**
 * Starts running, inline, every task that commits through `prisma` (the client extended with taskQueue()) from now on.
 * Resolves once it can claim; rejects with TaskQueueConfigError naming the fix when it cannot (a client that is not
 * extended, no handler to run, no task table). Close it after the test (afterEach) with close().
 */
export async function inlineQueue<Tasks extends TaskRegistry = TaskRegistry>(prisma: unknown, options: InlineQueueOptions<Tasks> = {}): Promise<InlineQueue<Tasks>> {
  checkOptions(options);
  const queue = new InlineQueue<Tasks>(prisma, options);
  await queue.open();
  return queue;
}

/** Throws TaskQueueConfigError naming the fix when the store cannot serve the queue (a test cannot wait for it). */
async function checkTable(store: Store, table: TaskTable, databaseUrl: string | undefined): Promise<void> {
  const problem = await store.check();
  if (!problem) return;
  const option = databaseUrl === undefined ? "prisma" : "databaseUrl";
  const where = databaseUrl === undefined ? "the database of the client" : `the database at ${redactUrl(databaseUrl)}`;
  const advice = databaseAdvice(problem, { option, table, displayName: store.displayName });
  throw new TaskQueueConfigError(option, `the inline queue cannot use ${where}: ${problem.message}; ${advice}.`);
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TaskQueueConfigError("options", `inlineQueue(prisma, options) takes an object such as { tasks }, got ${JSON.stringify(options)}.`);
  }
  for (const option of Object.keys(options)) {
    if (!OPTION_NAMES.has(option)) throw new TaskQueueConfigError(option, `unknown option of inlineQueue(). Use one of: ${[...OPTION_NAMES].join(", ")}.`);
  }
}
