// SQL units for due pending tasks that were woken long ago and are still pending: their message was lost, or dropped
// by a worker that died. First the queues that hold such tasks, then the tasks of chosen queues.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { WakeupTarget } from "../../../store/task-writes.js";

/** Pending, due, and its last wake-up is older than $1 ms. */
function stale(alias: string): string {
  const a = `${alias}.`;
  return `${a}status = 'pending' AND ${a}run_at <= now() AND ${a}published_at < now() - $1 * interval '1 millisecond'`;
}

/**
 * The queues that hold at least one stale task. Walks the distinct queues of the pending index one by one (a loose
 * index scan: one probe per queue), then looks for a stale task in each, stopping at the first; a queue whose pending
 * tasks are all freshly woken is read through (about 0.4 µs per pending task).
 */
export async function queuesWithStaleWakeups(db: Db, table: PgTable, republishAfterMs: number): Promise<string[]> {
  const t = table.sql;
  const rows = await db.query<{ queue: string }>(
    `WITH RECURSIVE queues AS (
       (SELECT queue FROM ${t} WHERE status = 'pending' ORDER BY queue LIMIT 1)
       UNION ALL
       SELECT (SELECT p.queue FROM ${t} p WHERE p.status = 'pending' AND p.queue > queues.queue ORDER BY p.queue LIMIT 1)
       FROM queues WHERE queues.queue IS NOT NULL
     )
     SELECT queue FROM queues
     WHERE queue IS NOT NULL AND EXISTS (SELECT 1 FROM ${t} s WHERE s.queue = queues.queue AND ${stale("s")})`,
    [republishAfterMs],
  );
  return rows.map((row) => row.queue);
}

/** Stale tasks of `queues`, oldest due first, at most `limit`. */
export function findStaleWakeups(db: Db, table: PgTable, options: { republishAfterMs: number; queues: readonly string[]; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `SELECT t.id::text AS id, t.queue FROM ${table.sql} t
     WHERE ${stale("t")} AND t.queue = ANY($2::text[])
     ORDER BY t.run_at
     LIMIT $3`,
    [options.republishAfterMs, options.queues, options.limit],
  );
}
