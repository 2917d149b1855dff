// The task table as PostgreSQL SQL names it: quoted once here, after store/task-table.ts validated the names.

import { companionTables, type CompanionTables, type TaskTable } from "../../store/task-table.js";

/** A validated table name with its quoted, schema-qualified form for the SQL units. */
export interface PgTable extends TaskTable, CompanionTables {
  /** Quoted and qualified, ready to splice into SQL: `"tasks"` or `"app"."tasks"`. */
  readonly sql: string;
}

export function pgTable(table: TaskTable): PgTable {
  const quoted = (name: string) => (table.schema ? `"${table.schema}"."${name}"` : `"${name}"`);
  return {
    ...table,
    sql: quoted(table.name),
    ...companionTables(table, quoted),
  };
}
