// SQL unit: one page of the task list, newest first, filtered, paged by keyset on the id (uuidv7, time-ordered).

import { TASK_STATUSES } from "../../../store/task-status.js";
import type { PageRequest, StatusFilter, TaskFilter, TaskGroup, TaskListPage, TaskListRow } from "../../../store/views.js";
import { NOW, toDate, toNullableDate } from "../clock.js";
import type { Db } from "../../../store/db.js";
import type { SqliteTable } from "../table.js";

const COLUMNS = `id, name, queue, status, attempts, max_attempts, run_at, created_at, finished_at, lease_owner, lease_expires_at, key,
  substr(last_error, 1, 400) AS error_text, substr(CAST(payload AS TEXT), 1, 160) AS payload_preview`;

export async function listTasks(db: Db, table: SqliteTable, filter: TaskFilter, page: PageRequest, groups: readonly TaskGroup[] | undefined): Promise<TaskListPage> {
  const newerFirst = page.after === undefined;
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return "?";
  };
  const where: string[] = [];
  if (page.after !== undefined) where.push(`id > ${param(page.after)}`);
  else if (page.before !== undefined) where.push(`id < ${param(page.before)}`);
  if (filter.fromId !== undefined) where.push(`id >= ${param(filter.fromId)}`);
  if (filter.toId !== undefined) where.push(`id < ${param(filter.toId)}`);
  if (filter.status === "expired") where.push(`lease_expires_at < ${NOW}`);
  if (filter.status === "due") where.push(`run_at <= ${NOW}`);
  if (filter.key !== undefined) where.push(`key = ${param(filter.key)}`);
  if (filter.queue !== undefined) where.push(`queue = ${param(filter.queue)}`);
  if (filter.name !== undefined) where.push(`name = ${param(filter.name)}`);
  const statuses = filter.status === undefined ? [...TASK_STATUSES] : [baseStatus(filter.status)];
  where.push(`status IN (SELECT value FROM json_each(${param(JSON.stringify(statuses))}))`);
  if (groups !== undefined && groups.length === 0 && (filter.queue !== undefined || filter.name !== undefined)) return { rows: [], hasOlder: false, hasNewer: false };
  const rows = await db.query<Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM ${table.sql} WHERE ${where.join(" AND ")} ORDER BY id ${newerFirst ? "DESC" : "ASC"} LIMIT ${param(page.limit + 1)}`,
    params,
  );
  const more = rows.length > page.limit;
  if (more) rows.pop();
  if (!newerFirst) rows.reverse();
  return { rows: rows.map(toListRow), hasOlder: newerFirst ? more : true, hasNewer: newerFirst ? page.before !== undefined : more };
}

function toListRow(row: Record<string, unknown>): TaskListRow {
  const error = row.error_text as string | null;
  return {
    id: row.id as string,
    name: row.name as string,
    queue: row.queue as string,
    status: row.status as string,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: toDate(row.run_at),
    createdAt: toDate(row.created_at),
    finishedAt: toNullableDate(row.finished_at),
    leaseOwner: row.lease_owner as string | null,
    leaseExpiresAt: toNullableDate(row.lease_expires_at),
    key: row.key as string | null,
    errorLine: error === null ? null : error.split("\n")[0]!,
    payloadPreview: row.payload_preview as string,
  };
}

function baseStatus(status: StatusFilter): string {
  if (status === "expired") return "running";
  if (status === "due") return "pending";
  return status;
}
