// SQL unit: one page of the task list, newest first, filtered, paged by keyset on the id (uuidv7, time-ordered).
// With the browse index, a filtered page is one short index range per (queue, name, status) merged, whatever the table size.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import { TASK_STATUSES } from "../../../store/task-status.js";
import type { PageRequest, StatusFilter, TaskFilter, TaskGroup, TaskListPage, TaskListRow } from "../../../store/views.js";
import { groupsValues } from "./task-groups.js";

const LIST_COLUMNS = `id::text AS id, name, queue, status, attempts, max_attempts AS "maxAttempts", run_at AS "runAt",
  created_at AS "createdAt", finished_at AS "finishedAt", lease_owner AS "leaseOwner", lease_expires_at AS "leaseExpiresAt",
  key, split_part(left(last_error, 400), E'\\n', 1) AS "errorLine", left(payload::text, 160) AS "payloadPreview"`;

/**
 * A page of tasks. `groups` are the (queue, name) pairs matching the filter from listTaskGroups when the browse index
 * exists (undefined without it: then one plain filtered scan, correct but slow on a large table for a rare filter).
 */
export async function listTasks(db: Db, table: PgTable, filter: TaskFilter, page: PageRequest, groups: readonly TaskGroup[] | undefined): Promise<TaskListPage> {
  const newerFirst = page.after === undefined;
  const values: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    values.push(value);
    return `$${values.length}::${cast}`;
  };
  const where: string[] = [];
  if (page.after !== undefined) where.push(`id > ${param(page.after, "uuid")}`);
  else if (page.before !== undefined) where.push(`id < ${param(page.before, "uuid")}`);
  if (filter.fromId !== undefined) where.push(`id >= ${param(filter.fromId, "uuid")}`);
  if (filter.toId !== undefined) where.push(`id < ${param(filter.toId, "uuid")}`);
  if (filter.status === "expired") where.push(`lease_expires_at < now()`);
  if (filter.status === "due") where.push(`run_at <= now()`);
  const order = newerFirst ? "DESC" : "ASC";
  const limit = param(page.limit + 1, "int");
  const statuses = filter.status === undefined ? [...TASK_STATUSES] : [baseStatus(filter.status)];
  const byGroups = groups !== undefined && filter.key === undefined && (filter.status || filter.name || filter.queue);

  let sql: string;
  if (byGroups) {
    if (groups.length === 0) return { rows: [], hasOlder: false, hasNewer: false };
    const statusList = param(statuses, "text[]");
    const pairs = groupsValues(groups, values);
    sql = `SELECT ${LIST_COLUMNS} FROM ${table.sql} AS t
      WHERE t.id IN (
        SELECT x.id FROM ${pairs}
        CROSS JOIN unnest(${statusList}) AS s(status)
        CROSS JOIN LATERAL (
          SELECT id FROM ${table.sql}
          WHERE queue = g.queue AND name = g.name AND status = s.status ${where.map((c) => `AND ${c}`).join(" ")}
          ORDER BY id ${order} LIMIT ${limit}
        ) AS x
        ORDER BY x.id ${order} LIMIT ${limit})
      ORDER BY t.id ${order}`;
  } else {
    if (filter.key !== undefined) where.push(`key = ${param(filter.key, "text")}`);
    if (filter.queue !== undefined) where.push(`queue = ${param(filter.queue, "text")}`);
    if (filter.name !== undefined) where.push(`name = ${param(filter.name, "text")}`);
    if (filter.status !== undefined) where.push(`status = ${param(baseStatus(filter.status), "text")}`);
    sql = `SELECT ${LIST_COLUMNS} FROM ${table.sql} AS t
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY t.id ${order} LIMIT ${limit}`;
  }
  const rows = await db.query<TaskListRow>(sql, values);
  const more = rows.length > page.limit;
  if (more) rows.pop();
  if (!newerFirst) rows.reverse();
  return {
    rows,
    hasOlder: newerFirst ? more : true,
    hasNewer: newerFirst ? page.before !== undefined : more,
  };
}

function baseStatus(status: StatusFilter): string {
  if (status === "expired") return "running";
  if (status === "due") return "pending";
  return status;
}
