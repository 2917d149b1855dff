// SQL unit: one task with every column, for the task page.

import type { TaskDetail } from "../../../store/views.js";
import type { Db } from "../../../store/db.js";
import { taskColumns, toTaskRecord, type TaskRow } from "../sql/task-row.js";
import type { PgTable } from "../table.js";

/** The task with id `id`, or undefined. `id` must already be a valid task id (see isTaskId). */
export async function findTask(db: Db, table: PgTable, id: string): Promise<TaskDetail | undefined> {
  const rows = await db.query<TaskRow & { now: Date }>(`SELECT ${taskColumns()}, now() AS now FROM ${table.sql} WHERE id = $1::uuid`, [id]);
  const row = rows[0];
  return row && { ...toTaskRecord(row), now: row.now };
}
