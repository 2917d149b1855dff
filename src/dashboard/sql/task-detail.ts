// SQL unit: one task with every column, for the task page.

import type { Db } from "../../db/driver.js";
import type { TaskTable } from "../../db/table.js";
import { taskColumns, type TaskRow } from "../../sql/task-row.js";

export interface TaskDetailRow extends TaskRow {
  /** The database's clock when the row was read, so ages are not skewed by the web server's clock. */
  now: Date;
}

/** The task with id `id`, or undefined. `id` must already be a valid UUID (see isUuid). */
export async function findTask(db: Db, table: TaskTable, id: string): Promise<TaskDetailRow | undefined> {
  const rows = await db.query<TaskDetailRow>(`SELECT ${taskColumns()}, now() AS now FROM ${table.sql} WHERE id = $1::uuid`, [id]);
  return rows[0];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a UUID in the canonical 8-4-4-4-12 form. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
