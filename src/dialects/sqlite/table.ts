// The task table as SQLite SQL names it: quoted once here, after store/task-table.ts validated the names. SQLite has
// no schemas the way PostgreSQL has, so a `schema` option is refused.

import { TaskQueueConfigError } from "../../errors.js";
import type { TaskTable } from "../../store/task-table.js";

/** A validated table name with the quoted forms the SQL units splice in. */
export interface SqliteTable extends TaskTable {
  /** `"tasks"`. */
  readonly sql: string;
  /** The cleaners' leader lease table: `"tasks_leaders"`. */
  readonly leaders: string;
  /** The schedules of recurring tasks: `"tasks_schedules"`. */
  readonly schedules: string;
  /** Their fired slots: `"tasks_schedule_slots"`. */
  readonly scheduleSlots: string;
  /** A row per paused or limited queue: `"tasks_queues"`. */
  readonly queues: string;
  /** The starts of rate-limited queues: `"tasks_queue_starts"`. */
  readonly queueStarts: string;
  /** The unquoted name, for index names: `tasks`. */
  readonly base: string;
}

export function sqliteTable(table: TaskTable): SqliteTable {
  if (table.schema !== undefined) {
    throw new TaskQueueConfigError("schema", `SQLite has no schemas; leave schema out (got ${JSON.stringify(table.schema)}) and give the table name alone.`);
  }
  return {
    ...table,
    sql: `"${table.name}"`,
    leaders: `"${table.name}_leaders"`,
    schedules: `"${table.name}_schedules"`,
    scheduleSlots: `"${table.name}_schedule_slots"`,
    queues: `"${table.name}_queues"`,
    queueStarts: `"${table.name}_queue_starts"`,
    base: table.name,
  };
}
