// SQL units of queue controls on PostgreSQL: a queue's row (pause, declared limits), pausing and resuming, and what
// status and the dashboard read. Times are read as epoch milliseconds.

import type { Db } from "../../../store/db.js";
import type { QueueDeclaration, QueueState } from "../../../store/queue-controls.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import type { PgTable } from "../table.js";

/** A queue row's columns, times as epoch milliseconds (read by toQueueState). */
export const QUEUE_COLUMNS = `queue, (extract(epoch FROM paused_at) * 1000)::float8 AS "pausedAtMs", concurrency, rate_starts AS "rateStarts",
  rate_per_ms AS "ratePerMs", (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAtMs"`;

export interface QueueRow {
  queue: string;
  pausedAtMs: number | null;
  concurrency: number | null;
  rateStarts: number | null;
  ratePerMs: number | null;
  updatedAtMs: number;
}

/** Sets paused_at unless it is set (creating the row); true when this call paused the queue. */
export async function pauseQueue(db: Db, table: PgTable, queue: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO ${table.queues} AS q (queue, paused_at, updated_at) VALUES ($1, now(), now())
     ON CONFLICT (queue) DO UPDATE SET paused_at = now(), updated_at = now() WHERE q.paused_at IS NULL
     RETURNING 1 AS paused`,
    [queue],
  );
  return rows.length > 0;
}

/**
 * Clears paused_at; marks the queue's due pending tasks unpublished (their wake-ups were dropped while it was paused)
 * and returns the oldest due `wakeLimit` of them to wake now. One transaction when called outside one.
 */
export async function resumeQueue(db: Db, table: PgTable, queue: string, wakeLimit: number): Promise<{ resumed: boolean; due: WakeupTarget[] }> {
  const run = async (tx: Db) => {
    const resumed = await tx.query(`UPDATE ${table.queues} SET paused_at = NULL, updated_at = now() WHERE queue = $1 AND paused_at IS NOT NULL RETURNING 1 AS resumed`, [
      queue,
    ]);
    await tx.query(
      `UPDATE ${table.sql} SET published_at = NULL
       WHERE status = 'pending' AND queue = $1 AND run_at <= now() AND published_at IS NOT NULL`,
      [queue],
    );
    const due = await tx.query<WakeupTarget>(
      `SELECT id::text AS id, queue FROM ${table.sql}
       WHERE status = 'pending' AND queue = $1 AND run_at <= now()
       ORDER BY priority DESC, run_at LIMIT $2`,
      [queue, wakeLimit],
    );
    return { resumed: resumed.length > 0, due };
  };
  return db.transaction ? db.transaction(run) : run(db);
}

/** Every queue row, ordered by queue. */
export async function listQueues(db: Db, table: PgTable): Promise<QueueState[]> {
  const rows = await db.query<QueueRow>(`SELECT ${QUEUE_COLUMNS} FROM ${table.queues} ORDER BY queue COLLATE "C"`, []);
  return rows.map(toQueueState);
}

/** A queue row as read by QUEUE_COLUMNS. */
export function toQueueState(row: QueueRow): QueueState {
  return {
    queue: row.queue,
    pausedAt: row.pausedAtMs === null ? null : new Date(Math.round(Number(row.pausedAtMs))),
    concurrency: row.concurrency,
    rateLimit: row.rateStarts === null || row.ratePerMs === null ? null : { starts: row.rateStarts, perMs: row.ratePerMs },
    updatedAt: new Date(Math.round(Number(row.updatedAtMs))),
  };
}

/** Writes each queue's declared limits (creating its row), leaving paused_at alone; rows already equal are not written. */
export async function syncQueues(db: Db, table: PgTable, declared: readonly QueueDeclaration[]): Promise<void> {
  if (declared.length === 0) return;
  const rows = [...new Map(declared.map((d) => [d.queue, d])).values()].sort((a, b) => (a.queue < b.queue ? -1 : 1));
  await db.query(
    `INSERT INTO ${table.queues} AS q (queue, concurrency, rate_starts, rate_per_ms, updated_at)
     SELECT d.queue, d.concurrency, d.rate_starts, d.rate_per_ms, now()
     FROM jsonb_to_recordset($1::jsonb) AS d(queue text, concurrency int, rate_starts int, rate_per_ms int)
     ON CONFLICT (queue) DO UPDATE SET concurrency = EXCLUDED.concurrency, rate_starts = EXCLUDED.rate_starts,
       rate_per_ms = EXCLUDED.rate_per_ms, updated_at = now()
     WHERE (q.concurrency, q.rate_starts, q.rate_per_ms) IS DISTINCT FROM (EXCLUDED.concurrency, EXCLUDED.rate_starts, EXCLUDED.rate_per_ms)`,
    [
      JSON.stringify(
        rows.map((d) => ({ queue: d.queue, concurrency: d.concurrency, rate_starts: d.rateLimit?.starts ?? null, rate_per_ms: d.rateLimit?.perMs ?? null })),
      ),
    ],
  );
}
