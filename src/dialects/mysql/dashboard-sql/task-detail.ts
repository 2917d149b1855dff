// SQL unit: one task with every column, for the task page, and the database's clock read in the same statement (the
// page says how long ago each time was by that clock, not the browser's).

import type { TaskDetail } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import { taskColumns, toTaskRecord, type TaskRow } from "../sql/task-row.js";
import { fromTimeText, NOW, timeText } from "../sql/values.js";
import type { MysqlTable } from "../table.js";

/** The task with id `id`, or undefined. `id` must already be a valid task id (see isTaskId). */
export async function findTask(db: CountingDb, table: MysqlTable, id: string): Promise<TaskDetail | undefined> {
  const rows = await db.query<TaskRow & { db_now: string }>(`SELECT ${taskColumns()}, ${timeText(NOW)} AS db_now FROM ${table.sql} WHERE id = ?`, [id]);
  const row = rows[0];
  return row && { ...toTaskRecord(row), now: fromTimeText(row.db_now) };
}
