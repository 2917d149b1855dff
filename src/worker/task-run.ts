// One run of one claimed task: validates the payload, calls the handler with its context, enforces the timeout,
// and makes sure exactly one of {success, failure, lease lost, released} settles the run, whichever comes first.

import type { TaskContext, TaskDefinition, TaskRecord } from "../define-tasks.js";
import { prismaDb } from "../db/prisma-db.js";
import { TaskPayloadError, UnknownTaskError } from "../errors.js";
import type { Logger } from "../logger.js";
import { completeTasks } from "../sql/complete-tasks.js";
import { errorMessage } from "./error-text.js";
import type { OutcomeWriter } from "./outcome-writer.js";
import { resultJson } from "./result-json.js";
import { loggerWith } from "./task-logger.js";
import type { ResolvedWorkerOptions } from "./worker-options.js";
import { TaskLeaseLostError, TaskTimeoutError, WorkerShutdownError } from "./worker-errors.js";

/** Default handler time limit, as documented on TaskDefinition.timeoutMs. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * running → finishing (writing success or failure) | committing (transactional: marking succeeded inside the
 * handler's transaction) | lost (heartbeat found the lease gone) | released (shutdown gives it back) → done.
 */
export type RunState = "running" | "finishing" | "committing" | "lost" | "released" | "done";

type HandledDefinition = TaskDefinition & { handler: NonNullable<TaskDefinition["handler"]> };

export class TaskRun {
  state: RunState = "running";
  /** Resolves once the handler's part is over (returned, threw, timed out, preempted): its concurrency slot is free. */
  readonly handlerDone: Promise<void>;
  /** Resolves once the run is settled: its outcome written, or the task lost or released. */
  readonly finished: Promise<void>;
  private readonly controller = new AbortController();
  private readonly logger: Logger;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private markFinished!: () => void;
  private markHandlerDone!: () => void;

  constructor(
    readonly task: TaskRecord,
    private readonly options: ResolvedWorkerOptions,
    private readonly outcomes: OutcomeWriter,
  ) {
    this.finished = new Promise((resolve) => (this.markFinished = resolve));
    this.handlerDone = new Promise((resolve) => (this.markHandlerDone = resolve));
    this.logger = loggerWith(options.logger, { taskId: task.id, taskName: task.name, attempt: task.attempts });
  }

  /** True while this worker holds the task's lease and should keep extending it. */
  get holdsLease(): boolean {
    return this.state === "running" || this.state === "finishing" || this.state === "committing";
  }

  /** Starts the handler in the background; `finished` tells when the run is over. */
  start(): void {
    this.execute().catch(async (error: unknown) => {
      // A throwing payload schema, for example: count it as a failed run rather than leave the task running.
      this.logger.error("task run failed inside the worker", { error: errorMessage(error) });
      if (this.take("finishing")) await this.outcomes.fail(this.task, this.options.handled.get(this.task.name), error).catch(() => undefined);
      this.done();
    });
  }

  /**
   * Ends a run that is still running: "lost" when the heartbeat found another owner, "released" when the worker
   * shuts down. Aborts the handler's signal. Returns false when the run had already settled another way.
   */
  preempt(kind: "lost" | "released"): boolean {
    if (!this.take(kind)) return false;
    const { task } = this;
    this.controller.abort(kind === "lost" ? new TaskLeaseLostError(task.name, task.id) : new WorkerShutdownError(this.options.workerId, task.id));
    if (kind === "lost") {
      this.logger.warn("task lease lost; abandoning the run without recording it", {});
      this.done();
    }
    return true;
  }

  /** Called by whoever settled the run last (also after a release was written). Idempotent. */
  done(): void {
    clearTimeout(this.timer);
    if (this.state !== "lost" && this.state !== "released") this.state = "done";
    this.markHandlerDone();
    this.markFinished();
  }

  private take(next: RunState): boolean {
    if (this.state !== "running") return false;
    this.state = next;
    clearTimeout(this.timer);
    this.markHandlerDone();
    return true;
  }

  private async execute(): Promise<void> {
    const { task, options } = this;
    const definition = options.handled.get(task.name);
    if (!definition) {
      await this.failFinally(undefined, new UnknownTaskError(task.name, options.names), "unknown-task");
      return;
    }
    const parsed = await definition.payload.safeParseAsync(task.payload);
    if (!parsed.success) {
      await this.failFinally(definition, new TaskPayloadError(task.name, parsed.error.issues), "invalid-payload");
      return;
    }
    if (this.state !== "running") return; // released while validating
    const timeoutMs = definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.timer = setTimeout(() => void this.timedOut(definition, timeoutMs), timeoutMs);
    const ctx: TaskContext = {
      task,
      attempt: task.attempts,
      signal: this.controller.signal,
      logger: this.logger,
      prisma: options.prisma,
      tx: undefined,
    };
    if (definition.transactional) await this.runInTransaction(definition, parsed.data, ctx, timeoutMs);
    else await this.runPlain(definition, parsed.data, ctx);
  }

  private async runPlain(definition: HandledDefinition, payload: unknown, ctx: TaskContext): Promise<void> {
    let value: unknown;
    try {
      value = await definition.handler(payload, ctx);
    } catch (error) {
      if (!this.take("finishing")) return; // settled by timeout, lease loss or shutdown: the late outcome is ignored
      await this.outcomes.fail(this.task, definition, error);
      this.done();
      return;
    }
    if (!this.take("finishing")) return;
    await this.outcomes.succeed(this.task, value, this.startedAt);
    this.done();
  }

  private async runInTransaction(definition: HandledDefinition, payload: unknown, ctx: TaskContext, timeoutMs: number): Promise<void> {
    const { task, options } = this;
    const prisma = options.prisma as { $transaction(fn: (tx: unknown) => Promise<unknown>, opts?: object): Promise<unknown> };
    try {
      await prisma.$transaction(
        async (tx) => {
          const value = await definition.handler(payload, { ...ctx, tx });
          if (!this.take("committing")) throw this.controller.signal.reason ?? new TaskLeaseLostError(task.name, task.id);
          const { json, problem } = resultJson(value);
          if (problem) this.logger.warn("task result not storable, stored null", { problem });
          const marked = await completeTasks(prismaDb(tx as never), options.table, options.workerId, [{ id: task.id, resultJson: json }]);
          if (marked.length === 0) throw new TaskLeaseLostError(task.name, task.id);
        },
        { timeout: timeoutMs + 5000, maxWait: 10_000 },
      );
    } catch (error) {
      if (this.state === "running") {
        // The handler (or the transaction's start) failed; its writes are rolled back. Record the failure outside.
        if (this.take("finishing")) await this.outcomes.fail(task, definition, error);
        this.done();
      } else if (this.state === "committing") {
        if (error instanceof TaskLeaseLostError) {
          this.state = "lost";
          this.logger.warn("task lease lost before commit; the handler's writes were rolled back", {});
        } else {
          this.state = "finishing";
          await this.outcomes.fail(task, definition, error);
        }
        this.done();
      }
      return;
    }
    this.logger.info("task succeeded", { durationMs: Date.now() - this.startedAt, transactional: true });
    this.done();
  }

  private async timedOut(definition: HandledDefinition, timeoutMs: number): Promise<void> {
    if (!this.take("finishing")) return;
    const error = new TaskTimeoutError(this.task.name, this.task.id, timeoutMs);
    this.controller.abort(error);
    await this.outcomes.fail(this.task, definition, error);
    this.done();
  }

  private async failFinally(definition: TaskDefinition | undefined, error: Error, reason: string): Promise<void> {
    if (!this.take("finishing")) return;
    await this.outcomes.fail(this.task, definition, error, reason);
    this.done();
  }
}
