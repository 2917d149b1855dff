// SQL unit: the scaling signal's tallies, statements of the transaction of the write they count (a success, a deletion
// on success, a prune). Each writer has rows of its own; on SQLite every writer takes the file's one write lock anyway.

import { TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS } from "../../../store/tallies.js";
import { bind } from "../bind.js";
import type { Statement } from "../statement-steps.js";
import type { SqliteTable } from "../table.js";

/** The slot of a time (an SQL expression SQLite's strftime reads): its Unix seconds, down to a multiple of the slot length. */
export function slotOf(time: string): string {
  return `(CAST(strftime('%s', ${time}) AS INTEGER) / ${TALLY_SLOT_SECONDS} * ${TALLY_SLOT_SECONDS})`;
}

/** What one write tallies. */
export interface TallyRows {
  /** Tasks that succeeded now, with the handler's run time when known. */
  succeeded?: ReadonlyArray<{ queue: string; runMs?: number | undefined }>;
  /** Tasks whose rows are gone, each counted in the slot of its created_at (stored text) when within the tallies' span. */
  deleted?: ReadonlyArray<{ queue: string; createdAt: string }>;
}

/** The statement that adds `rows` to `writer`'s tally rows; none when there is nothing to add. */
export function addTallies(table: SqliteTable, writer: string, rows: TallyRows): Statement[] {
  const succeeded = (rows.succeeded ?? []).map((row) => ({
    q: row.queue,
    ms: row.runMs === undefined || !Number.isFinite(row.runMs) ? null : Math.max(0, Math.round(row.runMs)),
  }));
  const deleted = (rows.deleted ?? []).map((row) => ({ q: row.queue, c: row.createdAt }));
  if (succeeded.length === 0 && deleted.length === 0) return [];
  return [
    bind(
      `INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
       SELECT slot, queue, {writer}, sum(succeeded), sum(timed), sum(run_ms), sum(deleted) FROM (
         SELECT ${slotOf("'now'")} AS slot, value ->> '$.q' AS queue, 1 AS succeeded, (value ->> '$.ms') IS NOT NULL AS timed,
                coalesce(value ->> '$.ms', 0) AS run_ms, 0 AS deleted
         FROM json_each({succeeded})
         UNION ALL
         SELECT ${slotOf("value ->> '$.c'")}, value ->> '$.q', 0, 0, 0, 1
         FROM json_each({deleted}) WHERE ${slotOf("value ->> '$.c'")} >= ${slotOf("'now'")} - ${TALLY_KEEP_SECONDS}
       ) WHERE true GROUP BY slot, queue
       ON CONFLICT (writer, slot, queue) DO UPDATE
       SET succeeded = t.succeeded + excluded.succeeded, timed = t.timed + excluded.timed, run_ms = t.run_ms + excluded.run_ms,
           deleted = t.deleted + excluded.deleted`,
      { writer, succeeded: JSON.stringify(succeeded), deleted: JSON.stringify(deleted) },
    ),
  ];
}

/** The statement that deletes the tally rows past the tallies' span (the mark of when tallying began with them). */
export function pruneTallies(table: SqliteTable): Statement {
  return [`DELETE FROM ${table.tallies} WHERE slot < ${slotOf("'now'")} - ${TALLY_KEEP_SECONDS}`, []];
}
