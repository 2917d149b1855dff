// The task table as PostgreSQL SQL names it: quoted once here, after store/task-table.ts validated the names.

import type { TaskTable } from "../../store/task-table.js";

/** A validated table name with its quoted, schema-qualified form for the SQL units. */
export interface PgTable extends TaskTable {
  /** Quoted and qualified, ready to splice into SQL: `"tasks"` or `"app"."tasks"`. */
  readonly sql: string;
  /** The schedules of recurring tasks beside it: `"tasks_schedules"` or `"app"."tasks_schedules"`. */
  readonly schedules: string;
  /** Their fired slots: `"tasks_schedule_slots"`. */
  readonly scheduleSlots: string;
  /** A row per paused or limited queue: `tasks_queues`. */
  readonly queues: string;
  /** The starts of rate-limited queues: `tasks_queue_starts`. */
  readonly queueStarts: string;
}

export function pgTable(table: TaskTable): PgTable {
  const quoted = (name: string) => (table.schema ? `"${table.schema}"."${name}"` : `"${name}"`);
  return {
    ...table,
    sql: quoted(table.name),
    schedules: quoted(`${table.name}_schedules`),
    scheduleSlots: quoted(`${table.name}_schedule_slots`),
    queues: quoted(`${table.name}_queues`),
    queueStarts: quoted(`${table.name}_queue_starts`),
  };
}
