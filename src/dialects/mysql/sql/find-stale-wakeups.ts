// SQL units for due pending tasks that were woken long ago and are still pending: their message was lost, or dropped
// by a worker that died. First the queues that hold such tasks, then the tasks of chosen queues.

import type { WakeupTarget } from "../../../store/task-writes.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, nowMinusMs, placeholders } from "./values.js";

/** Pending, due, and its last wake-up is older than the first placeholder's ms. */
const STALE = `status = 'pending' AND published_at < ${nowMinusMs()} AND run_at <= ${NOW}`;

/**
 * The queues that hold at least one stale task. Ranges over the index (status, published_at, run_at) up to the
 * staleness bound: only tasks woken longer ago than that are read, and a freshly woken backlog costs nothing.
 */
export async function queuesWithStaleWakeups(db: CountingDb, table: MysqlTable, republishAfterMs: number): Promise<string[]> {
  const rows = await db.query<{ queue: string }>(`SELECT DISTINCT queue FROM ${table.sql} WHERE ${STALE} ORDER BY queue`, [Math.round(republishAfterMs)]);
  return rows.map((row) => row.queue);
}

/** Stale tasks of `queues`, oldest due first, at most `limit`. */
export function findStaleWakeups(
  db: CountingDb,
  table: MysqlTable,
  options: { republishAfterMs: number; queues: readonly string[]; limit: number },
): Promise<WakeupTarget[]> {
  if (options.queues.length === 0) return Promise.resolve([]);
  return db.query<WakeupTarget>(
    `SELECT id, queue FROM ${table.sql}
     WHERE ${STALE} AND queue IN (${placeholders(options.queues.length)})
     ORDER BY run_at
     LIMIT ?`,
    [Math.round(options.republishAfterMs), ...options.queues, Math.floor(options.limit)],
  );
}
