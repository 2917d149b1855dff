// The task statuses, written once: the lifecycle every dialect's CHECK constraint, the CLI, the dashboard and the
// handler types agree on.

/** Every status a task row can have, in lifecycle order. */
export const TASK_STATUSES = ["pending", "running", "succeeded", "dead", "cancelled"] as const;

/** A task's lifecycle: pending → running → succeeded | pending (retry) | dead; pending → cancelled. */
export type TaskStatus = (typeof TASK_STATUSES)[number];
