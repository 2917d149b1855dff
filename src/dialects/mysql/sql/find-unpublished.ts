// SQL unit: due pending tasks that no useful wake-up was ever sent for. The cleaner publishes them; this is what makes
// a delayed task, a retry and a task whose after-commit publish failed run (guarantee 1).

import type { WakeupTarget } from "../../../store/task-writes.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, nowMinusMs } from "./values.js";

/**
 * Due pending tasks without a wake-up (published_at NULL), oldest due first, at most `limit`:
 * - delayed or retried (run_at after created_at: nothing published them at commit): as soon as they are due;
 * - due at commit: once `graceMs` has passed since creation (after-commit publishing had its turn).
 * Reads the index (status, published_at, run_at) in order. Every statement that makes a task runnable later (a retry,
 * a release, an operator's retry or run-now) clears published_at, so an earlier wake-up never hides a task from it.
 */
export function findUnpublished(db: CountingDb, table: MysqlTable, options: { graceMs: number; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `SELECT id, queue FROM ${table.sql}
     WHERE status = 'pending' AND published_at IS NULL AND run_at <= ${NOW}
       AND (run_at > created_at OR created_at < ${nowMinusMs()})
     ORDER BY run_at
     LIMIT ?`,
    [Math.round(options.graceMs), Math.floor(options.limit)],
  );
}
