// SQL unit: due pending tasks that no useful wake-up was ever sent for. The cleaner publishes them; this is what makes
// a delayed task, a retry and a task whose after-commit publish failed run (guarantee 1).

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { WakeupTarget } from "../../../store/task-writes.js";

/**
 * Due pending tasks without a wake-up (published_at NULL), oldest due first, at most `limit`:
 * - delayed or retried (run_at after created_at: nothing published them at commit): as soon as they are due;
 * - due at commit: once `graceMs` has passed since creation (after-commit publishing had its turn).
 * Every statement that makes a task runnable later (a retry, a release, an operator's retry or run-now) clears
 * published_at, so a wake-up sent for an earlier attempt never hides a task from this query.
 */
export function findUnpublished(db: Db, table: PgTable, options: { graceMs: number; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `SELECT id::text AS id, queue FROM ${table.sql}
     WHERE status = 'pending' AND published_at IS NULL AND run_at <= now()
       AND (run_at > created_at OR created_at < now() - $1 * interval '1 millisecond')
     ORDER BY run_at
     LIMIT $2`,
    [options.graceMs, options.limit],
  );
}
