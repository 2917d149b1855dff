// Errors the worker puts on a handler's AbortSignal (signal.reason) and in last_error, each with a stable code.
// Their codes are part of TaskQueueErrorCode.

import { TaskQueueError } from "../errors.js";

/** The handler ran past its task's timeoutMs. The run counts as a failed attempt. */
export class TaskTimeoutError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly taskId: string,
    readonly timeoutMs: number,
  ) {
    super(
      "TASK_TIMEOUT",
      `Task "${taskName}" (${taskId}) ran longer than its timeoutMs of ${timeoutMs} ms and was aborted. ` +
        `Make the handler honour ctx.signal and finish sooner, or raise timeoutMs in its definition.`,
    );
  }
}

/** This worker no longer holds the task's lease (it expired and the cleaner or another worker took the task). */
export class TaskLeaseLostError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly taskId: string,
  ) {
    super(
      "TASK_LEASE_LOST",
      `Lost the lease on task "${taskName}" (${taskId}): its lease expired and another worker or the cleaner took it over. ` +
        `This run's result is discarded. Raise leaseMs if the heartbeat could not reach the database in time.`,
    );
  }
}

/** The worker is shutting down for good: the run is abandoned and the task goes back to pending without using an attempt. */
export class WorkerShutdownError extends TaskQueueError {
  constructor(
    readonly workerId: string,
    readonly taskId: string,
  ) {
    super(
      "WORKER_SHUTTING_DOWN",
      `Worker ${workerId} is shutting down and stopped waiting for task ${taskId}; the task goes back to pending ` +
        `and runs again elsewhere. Raise shutdownGraceMs to let longer tasks finish.`,
    );
  }
}
