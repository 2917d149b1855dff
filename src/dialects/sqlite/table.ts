// The task table as SQLite SQL names it: quoted once here, after store/task-table.ts validated the names. SQLite has
// no schemas the way PostgreSQL has, so a `schema` option is refused.

import { TaskQueueConfigError } from "../../errors.js";
import { companionTables, type CompanionTables, type TaskTable } from "../../store/task-table.js";

/** A validated table name with the quoted forms the SQL units splice in. */
export interface SqliteTable extends TaskTable, CompanionTables {
  /** `"tasks"`. */
  readonly sql: string;
  /** The cleaners' leader lease table: `"tasks_leaders"`. */
  readonly leaders: string;
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
    ...companionTables(table, (name) => `"${name}"`),
    base: table.name,
  };
}
