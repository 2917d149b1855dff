// SQL units: record that wake-ups for these tasks reached the broker, or that they did not.
// Skips rows a worker holds locked (it is claiming them: the mark no longer matters), so it never waits on a claim,
// and rows rescheduled into the future since (claimed, failed, retrying): their next wake-up is the cleaner's to send.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/** Sets published_at = now() on the pending tasks among `ids`. Returns how many rows it marked. */
export async function markPublished(db: Db, table: PgTable, ids: readonly string[]): Promise<number> {
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

/**
 * Clears published_at of the pending tasks among `ids` whose wake-up could not be published, so the cleaner sends
 * it. Returns how many rows it cleared.
 */
export async function markUnpublished(db: Db, table: PgTable, ids: readonly string[]): Promise<number> {
  const rows = await db.query<{ cleared: number }>(
    `WITH cleared AS (
       UPDATE ${table.sql} SET published_at = NULL
       WHERE id = ANY($1::uuid[]) AND status = 'pending' AND published_at IS NOT NULL
       RETURNING 1
     )
     SELECT count(*)::int AS cleared FROM cleared`,
    [ids],
  );
  return rows[0]?.cleared ?? 0;
}
