// Picks the insert statement for a batch of prepared tasks (a keyless one when no task has a key) and reads its
// rows back as one InsertedTaskRow per task, in input order, whichever statement ran.

import type { TaskTable } from "../db/table.js";
import {
  insertKeylessTasksParams,
  insertKeylessTasksSql,
  insertOneKeylessTaskParams,
  insertOneKeylessTaskSql,
  type KeylessInsertRow,
} from "../sql/insert-keyless-tasks.js";
import { insertTasksParam, insertTasksSql, type InsertedTaskRow } from "../sql/insert-tasks.js";
import type { PreparedTask } from "./prepare.js";

/** One statement ready to send, and how to read its result. */
export interface InsertStatement {
  sql: string;
  params: unknown[];
  /** The statement's result as one row per task, in input order. */
  rowsOf(result: readonly unknown[]): InsertedTaskRow[];
}

/** The statement that inserts `rows`; `publishes` is the extension's flag (see insertTasksSql). */
export function insertStatement(table: TaskTable, rows: readonly PreparedTask[], publishes: boolean): InsertStatement {
  if (rows.length > 0 && rows.every((row) => row.key === null)) {
    const rowsOf = (result: readonly unknown[]) => keylessRows(rows, result as readonly KeylessInsertRow[]);
    if (rows.length === 1) {
      return { sql: insertOneKeylessTaskSql(table), params: insertOneKeylessTaskParams(rows[0]!, publishes), rowsOf };
    }
    return {
      sql: insertKeylessTasksSql(table),
      params: insertKeylessTasksParams(rows, publishes),
      rowsOf,
    };
  }
  return {
    sql: insertTasksSql(table),
    params: [insertTasksParam(rows), publishes],
    rowsOf: (result) => result as InsertedTaskRow[],
  };
}

/** Expands the keyless statement's rows: the row without an id stands for every task it does not list by id. */
function keylessRows(rows: readonly PreparedTask[], result: readonly KeylessInsertRow[]): InsertedTaskRow[] {
  let now: KeylessInsertRow | undefined;
  const timed = new Map<string, KeylessInsertRow>();
  for (const row of result) {
    if (row.id === null) now = row;
    else timed.set(row.id, row);
  }
  return rows.map((task, i) => {
    const at = timed.get(task.id) ?? now;
    if (!at) throw new Error(`the keyless insert returned no row for task ${task.id}`);
    return {
      i,
      id: task.id,
      name: task.name,
      queue: task.queue,
      status: "pending",
      key: null,
      run_at_ms: at.run_at_ms,
      created: true,
      due: at.due,
    };
  });
}
