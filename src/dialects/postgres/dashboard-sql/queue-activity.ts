// SQL unit: each queue's activity for the scaling signal: tasks enqueued and succeeded within the rate window, and the
// run time of the successes within the processing window. Rows by the primary key (task ids are time-ordered), tallies
// by their slot: the cost follows the windows' traffic, not the table size.

import type { Db } from "../../../store/db.js";
import type { ActivityWindows, QueueActivity } from "../../../store/tallies.js";
import { activityIdBound, toActivity, type ActivityRow } from "../../../store/activity-rows.js";
import type { PgTable } from "../table.js";
import { slotOf } from "../sql/tallies.js";

/** Per queue: arrivals and successes over the rate window, timed successes over the processing window. */
export async function queueActivity(db: Db, table: PgTable, windows: ActivityWindows): Promise<QueueActivity[]> {
  const rows = await db.query<ActivityRow>(
    `WITH clock AS (SELECT extract(epoch FROM now())::float8 AS now_s,
                           (SELECT min(run_ms) / 1000.0 FROM ${table.tallies} WHERE queue = '' AND writer = '')::float8 AS began),
     starts AS (SELECT now_s, greatest(${slotOf("to_timestamp(now_s - $1)")}, coalesce(began, 0)) AS rate_from,
                       greatest(${slotOf("to_timestamp(now_s - $2)")}, coalesce(began, 0)) AS run_from FROM clock),
     bounds AS (SELECT now_s, rate_from, run_from, ${slotOf("to_timestamp(rate_from)")} AS rate_slot, ${slotOf("to_timestamp(run_from)")} AS run_slot FROM starts),
     tallied AS (
       SELECT t.queue,
              coalesce(sum(t.succeeded) FILTER (WHERE t.slot >= b.rate_slot), 0) AS succeeded,
              coalesce(sum(t.deleted) FILTER (WHERE t.slot >= b.rate_slot), 0) AS deleted,
              coalesce(sum(t.timed) FILTER (WHERE t.slot >= b.run_slot), 0) AS timed,
              coalesce(sum(t.run_ms) FILTER (WHERE t.slot >= b.run_slot), 0) AS run_ms
       FROM ${table.tallies} t CROSS JOIN bounds b
       WHERE t.slot >= least(b.rate_slot, b.run_slot) AND t.queue <> ''
       GROUP BY t.queue),
     arrived AS (
       SELECT k.queue, count(*) AS arrived
       FROM ${table.sql} k CROSS JOIN bounds b
       WHERE k.id >= $3::uuid AND k.created_at >= to_timestamp(b.rate_from)
       GROUP BY k.queue)
     SELECT coalesce(a.queue, t.queue) AS queue, b.now_s - b.rate_from AS rate_seconds, b.now_s - b.run_from AS processing_seconds,
            coalesce(a.arrived, 0)::float8 AS arrived, coalesce(t.succeeded, 0)::float8 AS succeeded, coalesce(t.deleted, 0)::float8 AS deleted,
            coalesce(t.timed, 0)::float8 AS timed, coalesce(t.run_ms, 0)::float8 AS run_ms
     FROM arrived a FULL JOIN tallied t ON t.queue = a.queue CROSS JOIN bounds b
     ORDER BY 1`,
    [windows.rateSeconds, windows.processingSeconds, activityIdBound(windows)],
  );
  return rows.map(toActivity);
}
