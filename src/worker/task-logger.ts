// A logger that adds fixed fields (a task's id, name, attempt, queue and trace id) to every line, for ctx.logger and
// the worker's own lines about a run.

import type { Logger } from "../logger.js";
import type { TaskRecord } from "../store/task-record.js";
import { runScopeOf } from "../telemetry/telemetry.js";

/** Wraps `logger` so that every call carries `fields` (the call's own fields win). */
export function loggerWith(logger: Logger, fields: Record<string, unknown>): Logger {
  const wrap = (level: keyof Logger) => (message: string, more?: Record<string, unknown>) => logger[level](message, { ...fields, ...more });
  return { debug: wrap("debug"), info: wrap("info"), warn: wrap("warn"), error: wrap("error") };
}

/** The fields of every line about a run of `task`: its id, name, attempt and queue, and its run's trace id when traced. */
export function runFields(task: TaskRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = { taskId: task.id, taskName: task.name, attempt: task.attempts, queue: task.queue };
  const traceId = runScopeOf(task)?.traceId;
  if (traceId !== undefined) fields.traceId = traceId;
  return fields;
}
