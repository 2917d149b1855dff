// The task statuses, written once: the lifecycle every dialect's CHECK constraint, the CLI, the dashboard and the
// handler types agree on.

/** Every status a task row can have, in lifecycle order. */
export const TASK_STATUSES = ["pending", "running", "succeeded", "dead", "cancelled"] as const;

/** A task's lifecycle: pending → running → succeeded | pending (retry) | dead; pending → cancelled. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses a task never leaves by itself (an operator may retry a dead or cancelled one). */
export const FINISHED_STATUSES = ["succeeded", "dead", "cancelled"] as const satisfies readonly TaskStatus[];

/** True when `value` is one of TASK_STATUSES. */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === "string" && (TASK_STATUSES as readonly string[]).includes(value);
}
