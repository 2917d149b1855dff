// SQL unit: one page of the task list, newest first, filtered, paged by keyset on the id (uuidv7, time-ordered).
// With the browse index, a filtered page is one short index range per (queue, name, status), merged.

import { TASK_STATUSES } from "../../../store/task-status.js";
import type { PageRequest, StatusFilter, TaskFilter, TaskGroup, TaskListPage, TaskListRow } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { fromNullableTimeText, fromTimeText, jsonText, NOW, num, timeText } from "../sql/values.js";

const LIST_COLUMNS = `t.id, t.name, t.queue, t.status, t.attempts, t.max_attempts, ${timeText("t.run_at")} AS run_at,
  ${timeText("t.created_at")} AS created_at, ${timeText("t.finished_at")} AS finished_at, t.lease_owner,
  ${timeText("t.lease_expires_at")} AS lease_expires_at, t.\`key\`,
  SUBSTRING_INDEX(LEFT(t.last_error, 400), CHAR(10 USING utf8mb4), 1) AS error_line, LEFT(${jsonText("t.payload")}, 160) AS payload_preview`;

interface ListRow {
  id: string;
  name: string;
  queue: string;
  status: string;
  attempts: unknown;
  max_attempts: unknown;
  run_at: string;
  created_at: string;
  finished_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  key: string | null;
  error_line: string | null;
  payload_preview: string;
}

/**
 * A page of tasks. `groups` are the (queue, name) pairs matching the filter from listTaskGroups when the browse index
 * exists (undefined without it: then one plain filtered scan, correct but slow on a large table for a rare filter).
 * MySQL has no LATERAL (MariaDB none at all), so the per-group ranges are a UNION ALL of ordered, limited reads.
 */
export async function listTasks(
  db: CountingDb,
  table: MysqlTable,
  filter: TaskFilter,
  page: PageRequest,
  groups: readonly TaskGroup[] | undefined,
): Promise<TaskListPage> {
  const newerFirst = page.after === undefined;
  const order = newerFirst ? "DESC" : "ASC";
  const bounds: Array<[string, unknown]> = [];
  if (page.after !== undefined) bounds.push(["id > ?", page.after]);
  else if (page.before !== undefined) bounds.push(["id < ?", page.before]);
  if (filter.fromId !== undefined) bounds.push(["id >= ?", filter.fromId]);
  if (filter.toId !== undefined) bounds.push(["id < ?", filter.toId]);
  const clocked: string[] = [];
  if (filter.status === "expired") clocked.push(`lease_expires_at < ${NOW}`);
  if (filter.status === "due") clocked.push(`run_at <= ${NOW}`);
  const limit = page.limit + 1;
  const statuses = filter.status === undefined ? [...TASK_STATUSES] : [baseStatus(filter.status)];
  const byGroups = groups !== undefined && filter.key === undefined && (filter.status || filter.name || filter.queue);

  const values: unknown[] = [];
  let sql: string;
  if (byGroups) {
    if (groups.length === 0) return { rows: [], hasOlder: false, hasNewer: false };
    const parts: string[] = [];
    for (const group of groups) {
      for (const status of statuses) {
        values.push(group.queue, group.name, status, ...bounds.map(([, value]) => value), limit);
        const where = ["queue = ?", "name = ?", "status = ?", ...bounds.map(([condition]) => condition), ...clocked];
        parts.push(`(SELECT id FROM ${table.sql} WHERE ${where.join(" AND ")} ORDER BY id ${order} LIMIT ?)`);
      }
    }
    values.push(limit);
    sql = `SELECT ${LIST_COLUMNS}
      FROM (SELECT id FROM (${parts.join(" UNION ALL ")}) AS u ORDER BY id ${order} LIMIT ?) AS x
      JOIN ${table.sql} AS t ON t.id = x.id
      ORDER BY t.id ${order}`;
  } else {
    const where = [...bounds.map(([condition]) => condition), ...clocked];
    values.push(...bounds.map(([, value]) => value));
    for (const [column, value] of [
      ["`key`", filter.key],
      ["queue", filter.queue],
      ["name", filter.name],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      values.push(value);
    }
    if (filter.status !== undefined) {
      where.push("status = ?");
      values.push(baseStatus(filter.status));
    }
    values.push(limit);
    sql = `SELECT ${LIST_COLUMNS} FROM ${table.sql} AS t
      ${where.length ? `WHERE ${where.map((condition) => `t.${condition}`).join(" AND ")}` : ""}
      ORDER BY t.id ${order} LIMIT ?`;
  }
  const rows = (await db.query<ListRow>(sql, values)).map(toListRow);
  const more = rows.length > page.limit;
  if (more) rows.pop();
  if (!newerFirst) rows.reverse();
  return {
    rows,
    hasOlder: newerFirst ? more : true,
    hasNewer: newerFirst ? page.before !== undefined : more,
  };
}

function toListRow(row: ListRow): TaskListRow {
  return {
    id: row.id,
    name: row.name,
    queue: row.queue,
    status: row.status,
    attempts: num(row.attempts),
    maxAttempts: num(row.max_attempts),
    runAt: fromTimeText(row.run_at),
    createdAt: fromTimeText(row.created_at),
    finishedAt: fromNullableTimeText(row.finished_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: fromNullableTimeText(row.lease_expires_at),
    key: row.key,
    errorLine: row.error_line,
    payloadPreview: row.payload_preview,
  };
}

function baseStatus(status: StatusFilter): string {
  if (status === "expired") return "running";
  if (status === "due") return "pending";
  return status;
}
