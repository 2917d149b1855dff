// SQL pieces: the scaling signal's tallies, added in the same statement as the write they count (a data-modifying
// CTE), so a tally commits or rolls back with its rows. Each writer has rows of its own: workers never wait for another.

import { TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS } from "../../../store/tallies.js";
import type { PgTable } from "../table.js";

/** The slot of a time expression: its Unix seconds, down to a multiple of the slot length. */
export function slotOf(time: string): string {
  return `(floor(extract(epoch FROM ${time}) / ${TALLY_SLOT_SECONDS})::bigint * ${TALLY_SLOT_SECONDS})`;
}

/** What a tally counts of the rows of the CTE `done` (its columns: id, queue, created_at). */
export interface TallyParts {
  /** Placeholder of the writer (the worker id, or the cleaner's name). */
  writer: string;
  /** The rows succeeded now: counted in the current slot, timed by these placeholders (uuid[] and int[]). */
  succeeded?: { ids: string; runMs: string };
  /** The rows are gone: each counted as deleted in the slot of its created_at, when within the tallies' span. */
  deleted?: boolean;
}

/** The CTEs `tally_slot` and `tally`, to follow the CTE `done` (with a comma) in a WITH clause. */
export function tallyCtes(table: PgTable, parts: TallyParts): string {
  const selects: string[] = [];
  if (parts.succeeded) {
    selects.push(
      `SELECT s.slot, d.queue, count(*)::int AS succeeded, count(r.run_ms)::int AS timed, coalesce(sum(r.run_ms), 0)::bigint AS run_ms, 0 AS deleted
       FROM done d CROSS JOIN tally_slot s LEFT JOIN unnest(${parts.succeeded.ids}, ${parts.succeeded.runMs}) AS r(id, run_ms) ON r.id = d.id
       GROUP BY s.slot, d.queue`,
    );
  }
  if (parts.deleted) {
    selects.push(
      `SELECT ${slotOf("d.created_at")} AS slot, d.queue, 0 AS succeeded, 0 AS timed, 0::bigint AS run_ms, count(*)::int AS deleted
       FROM done d CROSS JOIN tally_slot s WHERE d.created_at >= to_timestamp(s.slot - ${TALLY_KEEP_SECONDS})
       GROUP BY 1, 2`,
    );
  }
  return `tally_slot AS (SELECT ${slotOf("clock_timestamp()")} AS slot),
   tally AS (
     INSERT INTO ${table.tallies} AS t (slot, queue, writer, succeeded, timed, run_ms, deleted)
     SELECT p.slot, p.queue, ${parts.writer}, sum(p.succeeded), sum(p.timed), sum(p.run_ms), sum(p.deleted)
     FROM (${selects.join(" UNION ALL ")}) AS p
     GROUP BY p.slot, p.queue
     ON CONFLICT (writer, slot, queue) DO UPDATE
     SET succeeded = t.succeeded + EXCLUDED.succeeded, timed = t.timed + EXCLUDED.timed, run_ms = t.run_ms + EXCLUDED.run_ms,
         deleted = t.deleted + EXCLUDED.deleted)`;
}

/** The timed ones of `runs` (id and run time), as the two array parameters of TallyParts.succeeded. */
export function timedRuns(runs: ReadonlyArray<{ id: string; runMs?: number | undefined }>): [string[], number[]] {
  const ids: string[] = [];
  const ms: number[] = [];
  for (const run of runs) {
    if (run.runMs === undefined || !Number.isFinite(run.runMs)) continue;
    ids.push(run.id);
    ms.push(Math.max(0, Math.round(run.runMs)));
  }
  return [ids, ms];
}
