// The task table as MySQL SQL names it: quoted once here with backticks, after store/task-table.ts validated the names.
// A schema, when given, is the MySQL database that holds the table.

import { companionTables, type CompanionTables, type TaskTable } from "../../store/task-table.js";

/** A validated table name with its quoted, database-qualified form for the SQL units. */
export interface MysqlTable extends TaskTable, CompanionTables {
  /** Quoted and qualified, ready to splice into SQL: `tasks` or `app`.`tasks`. */
  readonly sql: string;
}

export function mysqlTable(table: TaskTable): MysqlTable {
  const quoted = (name: string) => (table.schema ? `\`${table.schema}\`.\`${name}\`` : `\`${name}\``);
  return {
    ...table,
    sql: quoted(table.name),
    ...companionTables(table, quoted),
  };
}
