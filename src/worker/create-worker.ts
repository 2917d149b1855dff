// createWorker(): the embeddable worker that runs task handlers. `task-runner worker` is this plus signal handling.
// See worker-options.ts for every option with its default and trade-off.

import type { TaskRegistry } from "../define-tasks.js";
import { TaskWorker } from "./task-worker.js";
import { resolveWorkerOptions, type WorkerOptions } from "./worker-options.js";

export type { WorkerOptions } from "./worker-options.js";
export { TaskLeaseLostError, TaskTimeoutError, WorkerShutdownError } from "./worker-errors.js";

/** A worker: consumes wake-ups (or polls), claims tasks, runs their handlers, records the outcomes. */
export interface Worker {
  /** Written to lease_owner of the tasks it claims. */
  readonly id: string;
  /**
   * Connects and starts taking tasks: polls once for a backlog, then consumes wake-ups (or polls every
   * pollIntervalMs while the broker is unreachable). Resolves once running; call it once.
   * Rejects with TaskQueueConfigError, having closed whatever it opened, when waiting cannot help: the database refuses
   * the credentials or lacks the database, schema, table or privilege, or the broker refuses the credentials or
   * virtual host. An unreachable database or broker is not an error: the worker logs it and keeps trying (polling the
   * database until the broker is back).
   */
  start(): Promise<void>;
  /**
   * Graceful shutdown: stops taking tasks, waits up to shutdownGraceMs for running handlers, then aborts the rest
   * (their signal fires with WorkerShutdownError) and returns their tasks to pending without using an attempt.
   * Calling it again while it waits (a second SIGTERM) skips the rest of the grace period. Closes what it opened.
   */
  stop(): Promise<void>;
}

/**
 * Creates a worker for the tasks of `options.tasks` that have a handler. Checks every option now and throws
 * TaskQueueConfigError naming the bad one; nothing connects until start().
 *
 * Handlers get `(payload, ctx)`, with the payload validated again against the task's schema (an invalid one sends the
 * task straight to dead). A run longer than the task's timeoutMs (default 60 s) is aborted through ctx.signal and
 * counts as a failed attempt. A handler that ignores its signal cannot be stopped from JavaScript: the worker records
 * the failure, frees its concurrency slot and ignores whatever the abandoned promise does later, so such a handler
 * keeps using CPU or connections in the background until it ends by itself.
 */
export function createWorker<Tasks extends TaskRegistry>(options: WorkerOptions<Tasks>): Worker {
  const worker = new TaskWorker(resolveWorkerOptions(options));
  return {
    get id() {
      return worker.id;
    },
    start: () => worker.start(),
    stop: () => worker.stop(),
  };
}
