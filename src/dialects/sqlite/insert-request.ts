// Picks the insert statement for a batch of prepared tasks (one task: one parameter per column; more: one JSON
// parameter), sends it as one request through the Db (unsent until awaited, through Prisma), and reads its rows back.

import type { InsertRequest, PreparedTask } from "../../store/enqueue-rows.js";
import type { Db } from "../../store/db.js";
import { insertedTasks, insertOneTaskStatement, insertTasksStatement, type WrittenRow } from "./sql/insert-tasks.js";
import type { SqliteTable } from "./table.js";

export function insertRequest(db: Db, table: SqliteTable, rows: readonly PreparedTask[], publishes: boolean): InsertRequest {
  const read = (result: unknown) => insertedTasks(rows, result as WrittenRow[]);
  const [sql, params] = rows.length === 1 ? insertOneTaskStatement(table, rows[0]!, publishes) : insertTasksStatement(table, rows, publishes);
  return { request: db.request(sql, params), read };
}
