// SQL units of what `task-runner status` and the dashboard read on SQLite: counts by queue, name and status, the age
// of due tasks, one task, the browse index and the table's size up to a limit. An embedded database holds what one machine writes, so counts are
// exact (no sampling, unlike PostgreSQL's estimate above a limit).

import type { GroupCount, PendingAge, StatusCount, TaskDetail, TaskGroup } from "../../../store/views.js";
import { NOW, toDate } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { taskColumns, toTaskRecord, type SqliteTaskRow } from "../sql/task-row.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";

export function countTasks(db: Db, table: SqliteTable): Promise<StatusCount[]> {
  return db.query<StatusCount>(`SELECT queue, name, status, count(*) AS count FROM ${table.sql} GROUP BY queue, name, status ORDER BY queue, name, status`, []);
}

export async function countGroups(db: Db, table: SqliteTable, groups: readonly TaskGroup[] | undefined): Promise<GroupCount[]> {
  const rows = await countTasks(db, table);
  const wanted = groups && new Set(groups.map((group) => `${group.queue}\u0000${group.name}`));
  return rows.filter((row) => !wanted || wanted.has(`${row.queue}\u0000${row.name}`)).map((row) => ({ ...row, count: Number(row.count), estimated: false }));
}

export async function pendingAges(db: Db, table: SqliteTable): Promise<PendingAge[]> {
  const rows = await db.query<{ queue: string; due: number; oldest: unknown; now: unknown }>(
    `SELECT queue, count(*) AS due, min(run_at) AS oldest, ${NOW} AS now
     FROM ${table.sql} WHERE status = 'pending' AND run_at <= ${NOW} GROUP BY queue ORDER BY queue`,
    [],
  );
  return rows.map((row) => ({ queue: row.queue, due: Number(row.due), oldestDueSeconds: secondsBetween(row.oldest, row.now) }));
}

export async function findTask(db: Db, table: SqliteTable, id: string): Promise<TaskDetail | undefined> {
  const rows = await db.query<SqliteTaskRow & { now: unknown }>(...bind(`SELECT ${taskColumns()}, ${NOW} AS now FROM ${table.sql} WHERE id = {id}`, { id }));
  const row = rows[0];
  return row && { ...toTaskRecord(row), now: toDate(row.now) };
}

/** The statement that creates the browse index. */
export function browseIndexSql(table: SqliteTable): string {
  return `CREATE INDEX "${table.base}_browse_idx" ON ${table.sql} ("queue", "name", "status", "id");`;
}

/** True when an index of the table starts with queue, name, status, id and has no WHERE clause. */
export async function hasBrowseIndex(db: Db, table: SqliteTable): Promise<boolean> {
  const indexes = await db.query<{ name: string; partial: number }>(...bind(`SELECT name, partial FROM pragma_index_list({table})`, { table: table.base }));
  for (const index of indexes) {
    if (Number(index.partial) === 1) continue;
    const columns = await db.query<{ name: string }>(...bind(`SELECT name FROM pragma_index_info({index}) ORDER BY seqno`, { index: index.name }));
    if (
      columns
        .slice(0, 4)
        .map((column) => column.name)
        .join(",") === "queue,name,status,id"
    )
      return true;
  }
  return false;
}

/** The number of rows in the task table, or `limit` when it holds at least that many (reads at most `limit` rows). */
export async function countTasksUpTo(db: Db, table: SqliteTable, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(...bind(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table.sql} LIMIT {limit})`, { limit }));
  return Number(rows[0]?.n ?? 0);
}

/** The (queue, name) pairs present, ordered; `pin` fixes one side. */
export function listTaskGroups(db: Db, table: SqliteTable, pin: { queue?: string; name?: string } = {}): Promise<TaskGroup[]> {
  return db.query<TaskGroup>(
    ...bind(`SELECT DISTINCT queue, name FROM ${table.sql} WHERE ({queue} IS NULL OR queue = {queue}) AND ({name} IS NULL OR name = {name}) ORDER BY queue, name`, {
      queue: pin.queue ?? null,
      name: pin.name ?? null,
    }),
  );
}

/** Seconds from one stored time to another (0 when either is missing). */
export function secondsBetween(from: unknown, to: unknown): number {
  if (from === null || from === undefined || to === null || to === undefined) return 0;
  return Math.max(0, (toDate(to).getTime() - toDate(from).getTime()) / 1000);
}
