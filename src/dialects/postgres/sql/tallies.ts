// SQL pieces: the scaling signal's tallies. A deletion's arrivals are added in the same statement as the deletion (a
// data-modifying CTE), so they commit or roll back with it; the successes a worker counted are added by a statement of
// their own. Each writer has rows of its own: workers never wait for another.

import type { Db } from "../../../store/db.js";
import { mergeTallies, TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS, type SuccessTally } from "../../../store/tallies.js";
import type { PgTable } from "../table.js";

/** The slot of a time expression: its Unix seconds, down to a multiple of the slot length. */
export function slotOf(time: string): string {
  return `(floor(extract(epoch FROM ${time}) / ${TALLY_SLOT_SECONDS})::bigint * ${TALLY_SLOT_SECONDS})`;
}

/** What a tally counts of the rows of the CTE `done` (its columns: id, queue, created_at). */
export interface TallyParts {
  /** Placeholder of the writer (the worker id, or the cleaner's name). */
  writer: string;
  /** The rows are gone: each counted as deleted in the slot of its created_at, when within the tallies' span. */
  deleted: true;
}

/** The CTEs `tally_slot` and `tally`, to follow the CTE `done` (with a comma) in a WITH clause. */
export function tallyCtes(table: PgTable, parts: TallyParts): string {
  return `tally_slot AS (SELECT ${slotOf("clock_timestamp()")} AS slot),
   tally AS (
     INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
     SELECT ${slotOf("d.created_at")}, d.queue, ${parts.writer}, 0, 0, 0, count(*)::int
     FROM done d CROSS JOIN tally_slot s WHERE d.created_at >= to_timestamp(s.slot - ${TALLY_KEEP_SECONDS})
     GROUP BY 1, 2
     ON CONFLICT (writer, slot, queue) DO UPDATE SET deleted = t.deleted + EXCLUDED.deleted)`;
}

/** Adds the successes a worker counted, per queue, to its tally rows of the current slot. */
export async function addSuccessTallies(db: Db, table: PgTable, writer: string, tallies: readonly SuccessTally[]): Promise<void> {
  const merged = mergeTallies(tallies);
  if (merged.length === 0) return;
  await db.query(
    `INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
     SELECT ${slotOf("clock_timestamp()")}, r.queue, $1, r.succeeded, r.timed, r.run_ms, 0
     FROM unnest($2::text[], $3::int[], $4::int[], $5::bigint[]) AS r(queue, succeeded, timed, run_ms)
     ON CONFLICT (writer, slot, queue) DO UPDATE
     SET succeeded = t.succeeded + EXCLUDED.succeeded, timed = t.timed + EXCLUDED.timed, run_ms = t.run_ms + EXCLUDED.run_ms`,
    [writer, merged.map((m) => m.queue), merged.map((m) => m.succeeded), merged.map((m) => m.timed), merged.map((m) => m.runMs)],
  );
}
