// SQL units: record that wake-ups for these tasks reached the broker, or that they did not.
// Skips rows a worker holds locked (it is claiming them: the mark no longer matters), so it never waits on a claim,
// and rows rescheduled into the future since (claimed, failed, retrying): their next wake-up is the cleaner's to send.

import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, placeholders } from "./values.js";

/** Sets published_at = now on the pending, due tasks among `ids`. Returns how many rows it marked. */
export async function markPublished(db: CountingDb, table: MysqlTable, ids: readonly string[]): Promise<number> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) return 0;
  return atomically(db, async (tx) => {
    const target = await tx.query<{ id: string }>(
      `SELECT id FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(unique.length)}) AND status = 'pending' AND run_at <= ${NOW}
       FOR UPDATE SKIP LOCKED`,
      unique,
    );
    if (target.length === 0) return 0;
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY) SET published_at = ${NOW} WHERE id IN (${placeholders(target.length)})`,
      target.map((row) => row.id),
    );
    return target.length;
  });
}

/**
 * Clears published_at of the pending tasks among `ids` whose wake-up could not be published, so the cleaner sends it.
 * Returns how many rows it cleared (each row it matches changes, so the count is the same whether the connection
 * reports matched or changed rows).
 */
export function markUnpublished(db: CountingDb, table: MysqlTable, ids: readonly string[]): Promise<number> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) return Promise.resolve(0);
  return db.write(
    `UPDATE ${table.sql} FORCE INDEX (PRIMARY) SET published_at = NULL
     WHERE id IN (${placeholders(unique.length)}) AND status = 'pending' AND published_at IS NOT NULL`,
    unique,
  );
}
