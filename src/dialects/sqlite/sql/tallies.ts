// SQL units: the scaling signal's tallies. A deletion's arrivals (a deletion on success, a prune) are a statement of the
// deletion's transaction; the successes a worker counted are written by a statement of their own. Each writer has rows
// of its own; on SQLite every writer takes the file's one write lock anyway.

import type { Db } from "../../../store/db.js";
import { mergeTallies, TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS, type SuccessTally } from "../../../store/tallies.js";
import { bind } from "../bind.js";
import type { Statement } from "../statement-steps.js";
import type { SqliteTable } from "../table.js";

/** The slot of a time (an SQL expression SQLite's strftime reads): its Unix seconds, down to a multiple of the slot length. */
export function slotOf(time: string): string {
  return `(CAST(strftime('%s', ${time}) AS INTEGER) / ${TALLY_SLOT_SECONDS} * ${TALLY_SLOT_SECONDS})`;
}

/** The statement that adds `deleted` (rows gone, each with its created_at as stored text) to `writer`'s tally rows, each in the slot of its created_at when within the tallies' span; none when there is nothing to add. */
export function addDeletedTallies(table: SqliteTable, writer: string, deleted: ReadonlyArray<{ queue: string; createdAt: string }>): Statement[] {
  if (deleted.length === 0) return [];
  return [
    bind(
      `INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
       SELECT ${slotOf("value ->> '$.c'")} AS slot, value ->> '$.q' AS queue, {writer}, 0, 0, 0, count(*)
       FROM json_each({deleted}) WHERE ${slotOf("value ->> '$.c'")} >= ${slotOf("'now'")} - ${TALLY_KEEP_SECONDS}
       GROUP BY 1, 2
       ON CONFLICT (writer, slot, queue) DO UPDATE SET deleted = t.deleted + excluded.deleted`,
      { writer, deleted: JSON.stringify(deleted.map((row) => ({ q: row.queue, c: row.createdAt }))) },
    ),
  ];
}

/** Adds the successes a worker counted, per queue, to its tally rows of the current slot. */
export async function addSuccessTallies(db: Db, table: SqliteTable, writer: string, tallies: readonly SuccessTally[]): Promise<void> {
  const merged = mergeTallies(tallies);
  if (merged.length === 0) return;
  await db.query(
    ...bind(
      `INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
       SELECT ${slotOf("'now'")}, value ->> '$.q', {writer}, value ->> '$.s', value ->> '$.t', value ->> '$.ms', 0
       FROM json_each({tallies}) WHERE true
       ON CONFLICT (writer, slot, queue) DO UPDATE
       SET succeeded = t.succeeded + excluded.succeeded, timed = t.timed + excluded.timed, run_ms = t.run_ms + excluded.run_ms`,
      { writer, tallies: JSON.stringify(merged.map((m) => ({ q: m.queue, s: m.succeeded, t: m.timed, ms: m.runMs }))) },
    ),
  );
}

/** The statement that deletes the tally rows past the tallies' span (the mark of when tallying began with them). */
export function pruneTallies(table: SqliteTable): Statement {
  return [`DELETE FROM ${table.tallies} WHERE slot < ${slotOf("'now'")} - ${TALLY_KEEP_SECONDS}`, []];
}
