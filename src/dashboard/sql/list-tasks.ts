// SQL unit: one page of the task list, newest first, filtered, paged by keyset on the id (uuidv7, time-ordered).
// With the browse index, a filtered page is one short index range per (queue, name, status) merged, whatever the table size.

import type { Db } from "../../db/driver.js";
import type { TaskTable } from "../../db/table.js";
import { STATUSES } from "./count-groups.js";
import { groupsValues, type TaskGroup } from "./task-groups.js";

/** A status, or one of two views of what is stuck: running with an expired lease, pending and due. */
export type StatusFilter = (typeof STATUSES)[number] | "expired" | "due";

export interface TaskFilter {
  status?: StatusFilter;
  name?: string;
  queue?: string;
  key?: string;
  /** Lowest id to show: the uuidv7 bound of the earliest enqueue time (see idAtTime). */
  fromId?: string;
  /** Id bound past the latest enqueue time to show (exclusive). */
  toId?: string;
}

export interface PageRequest {
  /** Show tasks older than this id (the next page). */
  before?: string;
  /** Show tasks newer than this id (the previous page). */
  after?: string;
  /** Rows per page. */
  limit: number;
}

/** One list row: what the table shows, never the whole payload. */
export interface TaskListRow {
  id: string;
  name: string;
  queue: string;
  status: string;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  created_at: Date;
  finished_at: Date | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  key: string | null;
  error_line: string | null;
  payload_preview: string;
}

export interface TaskListPage {
  rows: TaskListRow[];
  /** More rows exist past the last one (older). */
  hasOlder: boolean;
  /** More rows exist before the first one (newer). */
  hasNewer: boolean;
}

const LIST_COLUMNS = `id::text AS id, name, queue, status, attempts, max_attempts, run_at, created_at, finished_at,
  lease_owner, lease_expires_at, key, split_part(left(last_error, 400), E'\\n', 1) AS error_line,
  left(payload::text, 160) AS payload_preview`;

/**
 * A page of tasks. `groups` are the (queue, name) pairs matching the filter from listTaskGroups when the browse index
 * exists (undefined without it: then one plain filtered scan, correct but slow on a large table for a rare filter).
 */
export async function listTasks(
  db: Db,
  table: TaskTable,
  filter: TaskFilter,
  page: PageRequest,
  groups: readonly TaskGroup[] | undefined,
): Promise<TaskListPage> {
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
  const statuses = filter.status === undefined ? [...STATUSES] : [baseStatus(filter.status)];
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

/** The smallest uuidv7 of millisecond `ms`: ids at or after it were made at or after that time. */
export function idAtTime(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0").slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
