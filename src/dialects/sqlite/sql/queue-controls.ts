// SQL units of queue controls on SQLite: a queue's row (pause, declared limits), pausing and resuming, and what status
// and the dashboard read. Times are ISO 8601 text in UTC.

import type { Db } from "../../../store/db.js";
import type { QueueDeclaration, QueueState } from "../../../store/queue-controls.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import { bind } from "../bind.js";
import { NOW, toDate, toNullableDate } from "../clock.js";
import { runSteps, type Steps } from "../statement-steps.js";
import type { SqliteTable } from "../table.js";

/** A queue row's columns (read by toQueueState). */
export const QUEUE_COLUMNS = "queue, paused_at, concurrency, rate_starts, rate_per_ms, updated_at";

export interface QueueRow {
  queue: string;
  paused_at: unknown;
  concurrency: number | null;
  rate_starts: number | null;
  rate_per_ms: number | null;
  updated_at: unknown;
}

/** Sets paused_at unless it is set (creating the row); true when this call paused the queue. */
export async function pauseQueue(db: Db, table: SqliteTable, queue: string): Promise<boolean> {
  const rows = await db.query(
    ...bind(
      `INSERT INTO ${table.queues} (queue, paused_at, updated_at) VALUES ({queue}, ${NOW}, ${NOW})
       ON CONFLICT (queue) DO UPDATE SET paused_at = ${NOW}, updated_at = ${NOW} WHERE paused_at IS NULL
       RETURNING 1 AS paused`,
      { queue },
    ),
  );
  return rows.length > 0;
}

/** Clears paused_at; marks the queue's due pending tasks unpublished and returns the oldest due `wakeLimit` of them. */
export async function resumeQueue(db: Db, table: SqliteTable, queue: string, wakeLimit: number): Promise<{ resumed: boolean; due: WakeupTarget[] }> {
  return runSteps(db, resumeSteps(table, queue, wakeLimit));
}

function* resumeSteps(table: SqliteTable, queue: string, wakeLimit: number): Steps<{ resumed: boolean; due: WakeupTarget[] }> {
  const resumed = yield bind(`UPDATE ${table.queues} SET paused_at = NULL, updated_at = ${NOW} WHERE queue = {queue} AND paused_at IS NOT NULL RETURNING 1 AS resumed`, {
    queue,
  });
  yield bind(`UPDATE ${table.sql} SET published_at = NULL WHERE status = 'pending' AND queue = {queue} AND run_at <= ${NOW} AND published_at IS NOT NULL`, { queue });
  const due = (yield bind(
    `SELECT id, queue FROM ${table.sql} WHERE status = 'pending' AND queue = {queue} AND run_at <= ${NOW} ORDER BY priority DESC, run_at LIMIT {limit}`,
    {
      queue,
      limit: wakeLimit,
    },
  )) as WakeupTarget[];
  return { resumed: resumed.length > 0, due };
}

/** Every queue row, ordered by queue. */
export async function listQueues(db: Db, table: SqliteTable): Promise<QueueState[]> {
  const rows = await db.query<QueueRow>(`SELECT ${QUEUE_COLUMNS} FROM ${table.queues} ORDER BY queue`, []);
  return rows.map(toQueueState);
}

/** A queue row as read by QUEUE_COLUMNS. */
export function toQueueState(row: QueueRow): QueueState {
  return {
    queue: row.queue,
    pausedAt: toNullableDate(row.paused_at),
    concurrency: row.concurrency === null ? null : Number(row.concurrency),
    rateLimit: row.rate_starts === null || row.rate_per_ms === null ? null : { starts: Number(row.rate_starts), perMs: Number(row.rate_per_ms) },
    updatedAt: toDate(row.updated_at),
  };
}

/** Writes each queue's declared limits (creating its row), leaving paused_at alone. (`WHERE true`: see schedules.ts.) */
export async function syncQueues(db: Db, table: SqliteTable, declared: readonly QueueDeclaration[]): Promise<void> {
  if (declared.length === 0) return;
  const rows = [...new Map(declared.map((d) => [d.queue, d])).values()];
  const json = JSON.stringify(
    rows.map((d) => ({ queue: d.queue, concurrency: d.concurrency, rate_starts: d.rateLimit?.starts ?? null, rate_per_ms: d.rateLimit?.perMs ?? null })),
  );
  await db.query(
    ...bind(
      `INSERT INTO ${table.queues} (queue, concurrency, rate_starts, rate_per_ms, updated_at)
       SELECT j.value ->> '$.queue', j.value ->> '$.concurrency', j.value ->> '$.rate_starts', j.value ->> '$.rate_per_ms', ${NOW}
       FROM json_each({declared}) AS j WHERE true
       ON CONFLICT (queue) DO UPDATE SET concurrency = excluded.concurrency, rate_starts = excluded.rate_starts, rate_per_ms = excluded.rate_per_ms, updated_at = ${NOW}
       WHERE concurrency IS NOT excluded.concurrency OR rate_starts IS NOT excluded.rate_starts OR rate_per_ms IS NOT excluded.rate_per_ms`,
      { declared: json },
    ),
  );
}
