// SQL units for the state of the queue at a glance (CLI `status`, dashboard overview): counts by queue, name and
// status, and per queue how many due tasks wait and since when, by the database clock.

import type { PendingAge, StatusCount } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { fromTimeText, NOW, num, timeText } from "./values.js";

/** Task counts by queue, name and status. */
export async function countTasks(db: CountingDb, table: MysqlTable): Promise<StatusCount[]> {
  const rows = await db.query<StatusCount>(
    `SELECT queue, name, status, COUNT(*) AS count FROM ${table.sql}
     GROUP BY queue, name, status ORDER BY queue, name, status`,
    [],
  );
  return rows.map((row) => ({ queue: row.queue, name: row.name, status: row.status, count: num(row.count) }));
}

/** Per queue: how many pending tasks are due and how long the oldest has waited. */
export async function pendingAges(db: CountingDb, table: MysqlTable): Promise<PendingAge[]> {
  const rows = await db.query<{ queue: string; due: unknown; oldest_us: unknown }>(
    `SELECT queue, COUNT(*) AS due, TIMESTAMPDIFF(MICROSECOND, MIN(run_at), ${NOW}) AS oldest_us
     FROM ${table.sql} WHERE status = 'pending' AND run_at <= ${NOW}
     GROUP BY queue ORDER BY queue`,
    [],
  );
  return rows.map((row) => ({ queue: row.queue, due: num(row.due), oldestDueSeconds: num(row.oldest_us) / 1e6 }));
}

/** The database's clock. */
export async function now(db: CountingDb): Promise<Date> {
  const rows = await db.query<{ db_now: string }>(`SELECT ${timeText(NOW)} AS db_now`, []);
  return fromTimeText(rows[0]!.db_now);
}
