// SQL units for the cleaner's wake-ups: due pending tasks no useful wake-up was ever sent for, due tasks whose last
// wake-up is stale, and marking the fate of wake-ups (published_at). SQLite has one writer, so nothing is skipped
// for a lock: a statement waits its turn.

import type { WakeupTarget } from "../../../store/task-writes.js";
import { NOW, nowPlus } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { jsonList } from "./task-row.js";

/** Due pending tasks without a wake-up: delayed or retried ones as soon as due, due-at-commit ones after graceMs. */
export function findUnpublished(db: Db, table: SqliteTable, options: { graceMs: number; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    ...bind(
      `SELECT id, queue FROM ${table.sql}
       WHERE status = 'pending' AND published_at IS NULL AND run_at <= ${NOW}
         AND (run_at > created_at OR created_at < ${nowPlus("-{graceMs}")})
       ORDER BY run_at LIMIT {limit}`,
      options,
    ),
  );
}

const STALE = `status = 'pending' AND run_at <= ${NOW} AND published_at < ${nowPlus("-{republishAfterMs}")}`;

/** The queues holding a due pending task whose last wake-up is older than republishAfterMs. */
export async function queuesWithStaleWakeups(db: Db, table: SqliteTable, republishAfterMs: number): Promise<string[]> {
  const rows = await db.query<{ queue: string }>(...bind(`SELECT DISTINCT queue FROM ${table.sql} WHERE ${STALE} ORDER BY queue`, { republishAfterMs }));
  return rows.map((row) => row.queue);
}

/** Stale tasks of `queues`, oldest due first, at most `limit`. */
export function findStaleWakeups(db: Db, table: SqliteTable, options: { republishAfterMs: number; queues: readonly string[]; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    ...bind(`SELECT id, queue FROM ${table.sql} WHERE ${STALE} AND queue IN ${jsonList("{queues}")} ORDER BY run_at LIMIT {limit}`, {
      republishAfterMs: options.republishAfterMs,
      queues: JSON.stringify(options.queues),
      limit: options.limit,
    }),
  );
}

/** Sets published_at on the due pending tasks among `ids`. */
export async function markPublished(db: Db, table: SqliteTable, ids: readonly string[]): Promise<number> {
  const rows = await db.query(
    ...bind(`UPDATE ${table.sql} SET published_at = ${NOW} WHERE id IN ${jsonList("{ids}")} AND status = 'pending' AND run_at <= ${NOW} RETURNING 1`, {
      ids: JSON.stringify(ids),
    }),
  );
  return rows.length;
}

/** Clears published_at of the pending tasks among `ids` whose wake-up could not be published. */
export async function markUnpublished(db: Db, table: SqliteTable, ids: readonly string[]): Promise<number> {
  const rows = await db.query(
    ...bind(`UPDATE ${table.sql} SET published_at = NULL WHERE id IN ${jsonList("{ids}")} AND status = 'pending' AND published_at IS NOT NULL RETURNING 1`, {
      ids: JSON.stringify(ids),
    }),
  );
  return rows.length;
}
