// What one inline run of a task did, as drain() reports it: read back from the task table after the run settled.

import type { TaskStatus } from "../store/task-status.js";
import type { TaskRecord } from "../store/task-record.js";

/** One run of one task by an inline queue. */
export interface InlineRun {
  id: string;
  name: string;
  /** The payload as stored (what the handler received before its schema's transforms). */
  payload: unknown;
  /** Which attempt the run was: 1 for the first, 2 for the first retry, … */
  attempt: number;
  /**
   * The task's status after the run, read from the table: "succeeded"; "pending" when it failed and waits for a retry
   * (drain({ scheduled: true }) runs it again now); "dead" when its attempts are used up or it threw UnrecoverableError.
   */
  status: TaskStatus;
  /** What the run failed with: the value the handler threw, or a TaskTimeoutError / TaskPayloadError. Undefined on success. */
  error?: unknown;
  /** The result stored for it (the handler's return value after JSON), null when none. */
  result: unknown;
  /** The whole row after the run. */
  task: TaskRecord;
}

/** True when the run did not end with the task succeeded. */
export function runFailed(run: InlineRun): boolean {
  return run.status !== "succeeded" || run.error !== undefined;
}
