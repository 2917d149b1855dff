// SQL unit: record that wake-ups for these tasks reached the broker.
// Skips rows a worker holds locked (it is claiming them: the mark no longer matters), so it never waits on a claim,
// and rows rescheduled into the future since (claimed, failed, retrying): their next wake-up is the cleaner's to send.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";

/** Sets published_at = now() on the pending tasks among `ids`. Returns how many rows it marked. */
export async function markPublished(db: Db, table: TaskTable, ids: readonly string[]): Promise<number> {
  const rows = await db.query<{ marked: number }>(
    `WITH target AS (
       SELECT id FROM ${table.sql}
       WHERE id = ANY($1::uuid[]) AND status = 'pending' AND run_at <= now()
       FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE ${table.sql} t SET published_at = now() FROM target WHERE t.id = target.id RETURNING 1
     )
     SELECT count(*)::int AS marked FROM marked`,
    [ids],
  );
  return rows[0]?.marked ?? 0;
}
