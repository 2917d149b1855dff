// SQL units of queue controls on MySQL / MariaDB: a queue's row (pause, declared limits), pausing and resuming, and
// what status and the dashboard read. Times are DATETIME in UTC, read as text.

import { atomically, type CountingDb } from "../../../store/db.js";
import type { QueueDeclaration, QueueState } from "../../../store/queue-controls.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import type { MysqlTable } from "../table.js";
import { fromNullableTimeText, fromTimeText, NOW, num, timeText } from "./values.js";

/**
 * Whether the queue of the task row `alias` is paused: a plain read of the queue table's primary key. Inside a locking
 * read (the claims' SELECT … FOR UPDATE SKIP LOCKED) the subquery takes no lock, so claims never wait on a queue's row.
 */
export const PAUSED = (alias: string, table: MysqlTable) => `EXISTS (SELECT 1 FROM ${table.queues} q WHERE q.queue = ${alias}.queue AND q.paused_at IS NOT NULL)`;

/**
 * Whether the queue of the task row `alias` holds its tasks back from a claim: paused, or (unless the claim counted
 * under the queue's lock) limited by its row. A plain read, as PAUSED.
 */
export const HELD_BACK = (alias: string, table: MysqlTable, counted: boolean | undefined) =>
  counted
    ? PAUSED(alias, table)
    : `EXISTS (SELECT 1 FROM ${table.queues} q WHERE q.queue = ${alias}.queue AND (q.paused_at IS NOT NULL OR q.concurrency IS NOT NULL OR q.rate_starts IS NOT NULL))`;

/** A queue row's columns, times as text (read by toQueueState). */
export const QUEUE_COLUMNS = `queue, ${timeText("paused_at")} AS paused_at, concurrency, rate_starts, rate_per_ms, ${timeText("updated_at")} AS updated_at`;

export interface QueueRow {
  queue: string;
  paused_at: string | null;
  concurrency: unknown;
  rate_starts: unknown;
  rate_per_ms: unknown;
  updated_at: string;
}

/** Sets paused_at unless it is set (creating the row); true when this call paused the queue. */
export function pauseQueue(db: CountingDb, table: MysqlTable, queue: string): Promise<boolean> {
  return atomically(db, async (tx) => {
    await tx.write(`INSERT IGNORE INTO ${table.queues} (queue, updated_at) VALUES (?, ${NOW})`, [queue]);
    const changed = await tx.write(`UPDATE ${table.queues} SET paused_at = ${NOW}, updated_at = ${NOW} WHERE queue = ? AND paused_at IS NULL`, [queue]);
    return changed > 0;
  });
}

/** Clears paused_at; marks the queue's due pending tasks unpublished and returns the oldest due `wakeLimit` of them. */
export function resumeQueue(db: CountingDb, table: MysqlTable, queue: string, wakeLimit: number): Promise<{ resumed: boolean; due: WakeupTarget[] }> {
  return atomically(db, async (tx) => {
    // The tasks first, the queue's row after: a claim by id of a limited queue holds its tasks while it waits for the
    // queue's row (queue-gate.ts), so taking the row first and then waiting for those tasks would deadlock with it.
    await tx.write(`UPDATE ${table.sql} SET published_at = NULL WHERE status = 'pending' AND queue = ? AND run_at <= ${NOW} AND published_at IS NOT NULL`, [queue]);
    const resumed = await tx.write(`UPDATE ${table.queues} SET paused_at = NULL, updated_at = ${NOW} WHERE queue = ? AND paused_at IS NOT NULL`, [queue]);
    const due = await tx.query<WakeupTarget>(
      `SELECT id, queue FROM ${table.sql} WHERE status = 'pending' AND queue = ? AND run_at <= ${NOW} ORDER BY priority DESC, run_at LIMIT ?`,
      [queue, Math.floor(wakeLimit)],
    );
    return { resumed: resumed > 0, due: due.map((row) => ({ id: row.id, queue: row.queue })) };
  });
}

/** Every queue row, ordered by queue. */
export async function listQueues(db: CountingDb, table: MysqlTable): Promise<QueueState[]> {
  const rows = await db.query<QueueRow>(`SELECT ${QUEUE_COLUMNS} FROM ${table.queues} ORDER BY queue`, []);
  return rows.map(toQueueState);
}

/** A queue row as read by QUEUE_COLUMNS. */
export function toQueueState(row: QueueRow): QueueState {
  return {
    queue: row.queue,
    pausedAt: fromNullableTimeText(row.paused_at),
    concurrency: row.concurrency === null ? null : num(row.concurrency),
    rateLimit: row.rate_starts === null || row.rate_per_ms === null ? null : { starts: num(row.rate_starts), perMs: num(row.rate_per_ms) },
    updatedAt: fromTimeText(row.updated_at),
  };
}

/** Writes each queue's declared limits (creating its row), leaving paused_at alone. */
export async function syncQueues(db: CountingDb, table: MysqlTable, declared: readonly QueueDeclaration[]): Promise<void> {
  const rows = [...new Map(declared.map((d) => [d.queue, d])).values()].sort((a, b) => (a.queue < b.queue ? -1 : 1));
  for (const d of rows) {
    await db.write(
      `INSERT INTO ${table.queues} (queue, concurrency, rate_starts, rate_per_ms, updated_at) VALUES (?, ?, ?, ?, ${NOW})
       ON DUPLICATE KEY UPDATE concurrency = VALUES(concurrency), rate_starts = VALUES(rate_starts), rate_per_ms = VALUES(rate_per_ms), updated_at = ${NOW}`,
      [d.queue, d.concurrency, d.rateLimit?.starts ?? null, d.rateLimit?.perMs ?? null],
    );
  }
}
