// SQL unit: the (queue, name) pairs present in the task table. With the browse index MySQL and MariaDB read them with
// a loose index scan ("Using index for group-by": one probe per pair), so the cost follows the pairs, not the rows.

import type { TaskGroup } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";

/** The distinct (queue, name) pairs, ordered; `queue`/`name` pin one side. Only call it when hasBrowseIndex is true. */
export function listTaskGroups(db: CountingDb, table: MysqlTable, pin: { queue?: string; name?: string } = {}): Promise<TaskGroup[]> {
  const where: string[] = [];
  const values: string[] = [];
  if (pin.queue !== undefined) {
    where.push("queue = ?");
    values.push(pin.queue);
  }
  if (pin.name !== undefined) {
    where.push("name = ?");
    values.push(pin.name);
  }
  return db.query<TaskGroup>(
    `SELECT queue, name FROM ${table.sql} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} GROUP BY queue, name ORDER BY queue, name`,
    values,
  );
}
