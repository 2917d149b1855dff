// The task table as PostgreSQL SQL names it: quoted once here, after store/task-table.ts validated the names.

import type { TaskTable } from "../../store/task-table.js";

/** A validated table name with its quoted, schema-qualified form for the SQL units. */
export interface PgTable extends TaskTable {
  /** Quoted and qualified, ready to splice into SQL: `"tasks"` or `"app"."tasks"`. */
  readonly sql: string;
}

export function pgTable(table: TaskTable): PgTable {
  const sql = table.schema ? `"${table.schema}"."${table.name}"` : `"${table.name}"`;
  return { ...table, sql };
}
