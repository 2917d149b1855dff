// SQL unit: delete one bounded batch of finished tasks (succeeded, dead, cancelled) older than the retention window.
// One short statement per batch, so pruning a huge table never holds a huge transaction.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/** Deletes at most `limit` tasks that finished more than `retentionMs` ago, oldest first. Returns their ids. */
export async function pruneTasks(db: Db, table: PgTable, options: { retentionMs: number; limit: number }): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `DELETE FROM ${table.sql} WHERE id IN (
       SELECT id FROM ${table.sql}
       WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at < now() - $1 * interval '1 millisecond'
       ORDER BY finished_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED)
     RETURNING id::text AS id`,
    [options.retentionMs, options.limit],
  );
  return rows.map((row) => row.id);
}
