// One run of one claimed task: validates the payload, calls the handler with its context, enforces the timeout,
// and makes sure exactly one of {success, failure, lease lost, released} settles the run, whichever comes first.

import type { TaskDefinition, TaskRecord } from "../define-tasks.js";
import type { TaskContext } from "../task-context.js";
import { transactionGate } from "../enqueue/transaction-gate.js";
import { TaskPayloadError, UnknownTaskError } from "../errors.js";
import { parsePayload, type ParsedPayload } from "../payload-validation.js";
import type { Logger } from "../logger.js";
import { errorMessage } from "../error-text.js";
import type { Store } from "../store/store.js";
import type { Suspension } from "../store/steps.js";
import type { OutcomeWriter } from "./outcome-writer.js";
import { resultJson } from "./result-json.js";
import { loggerWith, runFields } from "./task-logger.js";
import type { HandledDefinition, ResolvedWorkerOptions } from "./worker-options.js";
import { TaskLeaseLostError, TaskTimeoutError, WorkerShutdownError } from "./worker-errors.js";
import { telemetry, type RunScope } from "../telemetry/telemetry.js";
import type { RunPlace } from "../telemetry/telemetry-events.js";
import { StepRunner } from "../workflow/step-runner.js";

/** Default handler time limit, as documented on TaskDefinition.timeoutMs. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * running → finishing (writing success or failure) | committing (transactional: marking succeeded inside the
 * handler's transaction) | lost (heartbeat found the lease gone) | released (shutdown gives it back) → done.
 */
type RunState = "running" | "finishing" | "committing" | "lost" | "released" | "done";

/** The ctx the worker builds; each handler sees it through the client types its registry names. */
type RunContext = TaskContext<unknown, unknown>;

/** What the worker hears from a run: when its handler's part is over, and when it is settled. */
export interface RunHooks {
  /** The handler's part is over (returned, threw, timed out, preempted): its concurrency slot is free. Called once. */
  handlerDone(run: TaskRun): void;
  /** The run is settled: its outcome written, or the task lost or released. Called once. */
  finished(run: TaskRun): void;
  /** A transactional run committed its success with the handler's writes (no outcome writer took part). */
  committed?(run: TaskRun): void;
}

export class TaskRun {
  state: RunState = "running";
  /** True once start() ran: the run holds one of the worker's run slots. */
  started = false;
  /** Created on first use: most handlers never read ctx.signal, and the timeout, lease loss or shutdown set it aborted. */
  private controller: AbortController | undefined;
  private abortReason: Error | undefined;
  private ownLogger: Logger | undefined;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private handlerOver = false;
  private settled = false;
  private settledWaiters: Array<() => void> | undefined;
  /** The run's span and metrics, when something observes (see telemetry/telemetry.ts). */
  private observed: RunScope | undefined;
  /** ctx.step, made when the handler first reads it. */
  private stepRunner: StepRunner | undefined;

  constructor(
    readonly task: TaskRecord,
    private readonly options: ResolvedWorkerOptions,
    private readonly store: Store,
    private readonly outcomes: OutcomeWriter,
    private readonly hooks: RunHooks,
    /** Where the run happens, for its span and metrics; the store's dialect and "unknown" transport without it. */
    private readonly place?: RunPlace,
  ) {}

  /** Resolves once the run is settled: its outcome written, or the task lost or released. */
  get finished(): Promise<void> {
    if (this.settled) return Promise.resolve();
    return new Promise((resolve) => (this.settledWaiters ??= []).push(resolve));
  }

  /** The handler's ctx.signal. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Lines about this run, carrying the task's id, name and attempt. */
  get logger(): Logger {
    const { task } = this;
    this.ownLogger ??= loggerWith(this.options.logger, runFields(task));
    return this.ownLogger;
  }

  /** The handler's ctx.step: its workflow steps, replayed from earlier runs and recorded by this one. */
  get steps(): StepRunner {
    if (!this.stepRunner) {
      const { task, options, store } = this;
      this.stepRunner = new StepRunner({
        task,
        owner: options.workerId,
        store,
        prisma: options.prisma,
        transactional: options.handled.get(task.name)?.transactional === true,
        checkRunning: () => {
          if (this.state !== "running") throw this.abortReason ?? new TaskLeaseLostError(task.name, task.id);
        },
      });
    }
    return this.stepRunner;
  }

  /** True while this worker holds the task's lease and should keep extending it. */
  get holdsLease(): boolean {
    return this.state === "running" || this.state === "finishing" || this.state === "committing";
  }

  /** Starts the handler in the background; `finished` tells when the run is over. */
  start(): void {
    this.started = true;
    this.observed = telemetry()?.runStarted(this.task, this.place ?? { dialect: this.store.dialect, transport: "unknown" });
    if (this.observed) this.observed.within(() => this.beginCaught());
    else this.beginCaught();
  }

  private beginCaught(): void {
    try {
      this.begin();
    } catch (error) {
      this.crashed(error);
    }
  }

  /** A throwing payload schema, for example: count it as a failed run rather than leave the task running. */
  private crashed(error: unknown): void {
    this.logger.error("task run failed inside the worker", { error: errorMessage(error) });
    if (!this.take("finishing")) {
      this.done();
      return;
    }
    this.outcomes.fail(this.task, this.options.handled.get(this.task.name), error).then(this.doneNow, this.doneAfterError);
  }

  private readonly doneNow = () => this.done();
  private readonly doneAfterError = (error: unknown) => {
    this.logger.error("task run failed inside the worker", { error: errorMessage(error) });
    this.done();
  };

  /**
   * Ends a run that is still running: "lost" when the heartbeat found another owner, "released" when the worker
   * shuts down. Aborts the handler's signal. Returns false when the run had already settled another way.
   */
  preempt(kind: "lost" | "released"): boolean {
    if (!this.take(kind)) return false;
    const { task } = this;
    this.abort(kind === "lost" ? new TaskLeaseLostError(task.name, task.id) : new WorkerShutdownError(this.options.workerId, task.id));
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
    // The outcome writer has ended the scope with what it wrote; a run that wrote nothing ends it here.
    this.observed?.end(this.state === "released" ? "released" : "lost");
    this.endHandler();
    if (this.settled) return;
    this.settled = true;
    this.hooks.finished(this);
    if (this.settledWaiters) for (const resolve of this.settledWaiters) resolve();
  }

  private take(next: RunState): boolean {
    if (this.state !== "running") return false;
    this.state = next;
    clearTimeout(this.timer);
    this.endHandler();
    return true;
  }

  private endHandler(): void {
    if (this.handlerOver) return;
    this.handlerOver = true;
    this.hooks.handlerDone(this);
  }

  private abort(reason: Error): void {
    this.abortReason ??= reason;
    this.controller?.abort(reason);
  }

  // The happy path of a plain handler runs on callbacks, not async functions: a drain starts thousands of runs a
  // second, and every suspended async frame is garbage to collect.
  private begin(): void {
    const { task, options } = this;
    const definition = options.handled.get(task.name);
    if (!definition) {
      this.failFinally(undefined, new UnknownTaskError(task.name, options.names), "unknown-task").catch(this.doneAfterError);
      return;
    }
    const validated = parsePayload(definition, task.payload);
    if (validated instanceof Promise) {
      validated.then((parsed) => this.validated(definition, parsed)).catch((error: unknown) => this.crashed(error));
    } else {
      this.validated(definition, validated);
    }
  }

  private validated(definition: HandledDefinition, parsed: ParsedPayload): void {
    if (!parsed.success) {
      this.failFinally(definition, new TaskPayloadError(this.task.name, parsed.error.issues), "invalid-payload").catch(this.doneAfterError);
      return;
    }
    if (this.state !== "running") return; // released while validating
    const timeoutMs = definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.timer = setTimeout(timedOut, timeoutMs, this, definition, timeoutMs);
    const ctx = contextOf(this, this.options.prisma);
    if (definition.transactional) {
      this.runInTransaction(definition, parsed.data, ctx, timeoutMs).catch((error: unknown) => this.crashed(error));
      return;
    }
    let value: unknown;
    try {
      value = definition.handler(parsed.data, ctx);
    } catch (error) {
      this.handlerFailed(definition, error);
      return;
    }
    if (isThenable(value)) {
      value.then(
        (resolved) => this.handlerReturned(resolved),
        (error: unknown) => this.handlerFailed(definition, error),
      );
    } else {
      this.handlerReturned(value);
    }
  }

  private handlerReturned(value: unknown): void {
    if (this.stepRunner?.suspension) {
      this.logger.warn("the handler returned after a sleep or wait ended its run (it caught the suspension): the task waits all the same", {});
      this.suspended(this.stepRunner.suspension);
      return;
    }
    if (!this.take("finishing")) return; // settled by timeout, lease loss or shutdown: the late outcome is ignored
    // A workflow keeps its row (and its steps) whatever deleteOnSuccess says, and so does a child, whose parent reads its
    // result: the prune deletes them.
    const deletes = !this.stepRunner?.steps && !this.task.parentId && deletesOnSuccess(this.options, this.options.handled.get(this.task.name));
    this.outcomes.succeed(this.task, value, this.startedAt, deletes).then(this.doneNow, this.doneAfterError);
  }

  private handlerFailed(definition: HandledDefinition, error: unknown): void {
    const suspension = this.stepRunner?.suspension;
    if (suspension) {
      this.suspended(suspension);
      return;
    }
    if (!this.take("finishing")) return;
    this.outcomes.fail(this.task, definition, error).then(this.doneNow, this.doneAfterError);
  }

  /** A sleep or a wait ended the run: the task goes back to the queue until it is due again. */
  private suspended(suspension: Suspension): void {
    if (!this.take("finishing")) return;
    this.outcomes.suspend(this.task, suspension).then(this.doneNow, this.doneAfterError);
  }

  private async runInTransaction(definition: HandledDefinition, payload: unknown, ctx: RunContext, timeoutMs: number): Promise<void> {
    const { task, options } = this;
    const prisma = options.prisma as { $transaction(fn: (tx: unknown) => Promise<unknown>, opts?: object): Promise<unknown> };
    // On a client with one connection (SQLite), the run takes its turn at the client's gate like the app's transactions.
    const gate = transactionGate(prisma, this.store);
    const attempt = () =>
      prisma.$transaction(
        async (tx) => {
          const value = await definition.handler(payload, withTransaction(ctx, tx));
          if (!this.take("committing")) throw this.abortReason ?? new TaskLeaseLostError(task.name, task.id);
          const { json, problem } = resultJson(value);
          if (problem) this.logger.warn("task result not storable, stored null", { problem });
          // Delete on success deletes in this same transaction, so the handler's writes and the row's end commit together.
          const through = this.store.through(tx);
          const marked =
            json === "null" && !task.parentId && deletesOnSuccess(options, definition)
              ? await through.deleteSucceeded(options.workerId, [task.id], [task.attempts])
              : await through.complete(options.workerId, [{ id: task.id, attempt: task.attempts, resultJson: json }]);
          if (marked.length === 0) throw new TaskLeaseLostError(task.name, task.id);
        },
        { timeout: timeoutMs + 5000, maxWait: 10_000 },
      );
    try {
      await (gate ? gate.run(attempt, () => this.store.through(prisma).endFailedTransaction()) : attempt());
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
    this.outcomes.committedSuccess(task, this.startedAt);
    this.observed?.end("succeeded");
    this.hooks.committed?.(this);
    this.done();
  }

  /** The handler outlived its timeoutMs (called by the run's timer). */
  async timedOut(definition: HandledDefinition, timeoutMs: number): Promise<void> {
    if (!this.take("finishing")) return;
    const error = new TaskTimeoutError(this.task.name, this.task.id, timeoutMs);
    this.abort(error);
    await this.outcomes.fail(this.task, definition, error);
    this.done();
  }

  private async failFinally(definition: TaskDefinition | undefined, error: Error, reason: string): Promise<void> {
    if (!this.take("finishing")) return;
    await this.outcomes.fail(this.task, definition, error, reason);
    this.done();
  }
}

function timedOut(run: TaskRun, definition: HandledDefinition, timeoutMs: number): void {
  void run.timedOut(definition, timeoutMs);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** The handler's context; signal and logger are made only when the handler reads them. */
function contextOf(run: TaskRun, prisma: unknown): RunContext {
  return {
    task: run.task,
    attempt: run.task.attempts,
    get signal() {
      return run.signal;
    },
    get logger() {
      return run.logger;
    },
    get step() {
      return run.steps;
    },
    prisma,
    tx: undefined,
  };
}

/** Whether a success of `definition` with no result deletes the task's row: the task's own choice, else the worker's. */
function deletesOnSuccess(options: ResolvedWorkerOptions, definition: HandledDefinition | undefined): boolean {
  return definition?.deleteOnSuccess ?? options.deleteOnSuccess;
}

/** `ctx` with the transaction of a transactional handler (the getters stay getters). */
function withTransaction(ctx: RunContext, tx: unknown): RunContext {
  return Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(ctx), tx: { value: tx, enumerable: true } }) as RunContext;
}
