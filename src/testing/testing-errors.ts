// The errors of prisma-task-queue/testing: a failed assertion about what was enqueued, and inline runs that failed.
// Both are plain Errors (TaskQueueError subclasses) whose message is enough to see what happened, in any test runner.

import { TaskQueueError } from "../errors.js";
import type { InlineRun } from "./inline-run.js";

/** An assertion of an enqueue recorder failed; the message lists what WAS enqueued. */
export class TaskAssertionError extends TaskQueueError {
  constructor(message: string) {
    super("TASK_ASSERTION_FAILED", message);
  }
}

/**
 * drain() found runs that did not succeed (a handler threw, timed out, got an invalid payload) or tasks it could not
 * run. `failures` holds the runs, each with the value its handler threw as `error`; `cause` is the first of those values.
 */
export class InlineTaskError extends TaskQueueError {
  constructor(
    readonly failures: readonly InlineRun[],
    readonly problems: readonly Error[],
  ) {
    const lines = [...failures.map(describeFailure), ...problems.map((problem) => problem.message)];
    const count = lines.length === 1 ? "1 inline task failed" : `${lines.length} inline tasks failed`;
    super("TASK_INLINE_RUN_FAILED", `${count}:\n${lines.map((line, index) => `  ${index + 1}. ${line}`).join("\n")}`);
    const first = failures.find((run) => run.error !== undefined)?.error ?? problems[0];
    if (first !== undefined) (this as { cause?: unknown }).cause = first;
  }
}

function describeFailure(run: InlineRun): string {
  const where = `task "${run.name}" (id ${run.id}, attempt ${run.attempt})`;
  const now = run.status === "pending" ? "pending again for a retry" : run.status;
  if (run.error === undefined) return `${where} did not succeed: it is ${now}`;
  return `${where} threw ${errorLine(run.error)}; the task is now ${now}`;
}

function errorLine(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
