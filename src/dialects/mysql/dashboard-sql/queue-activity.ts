// SQL unit: each queue's activity for the scaling signal: tasks enqueued and succeeded within the rate window, and the
// run time of the successes within the processing window. Rows by the primary key (task ids are time-ordered), tallies
// by their slot: the cost follows the windows' traffic, not the table size.

import type { CountingDb } from "../../../store/db.js";
import { activityIdBound, toActivity, type ActivityRow } from "../../../store/activity-rows.js";
import { type ActivityWindows, type QueueActivity } from "../../../store/tallies.js";
import type { MysqlTable } from "../table.js";
import { slotOf } from "../sql/tallies.js";

/** Per queue: arrivals and successes over the rate window, timed successes over the processing window. */
export async function queueActivity(db: CountingDb, table: MysqlTable, windows: ActivityWindows): Promise<QueueActivity[]> {
  const rows = await db.query<ActivityRow>(
    `WITH clock AS (SELECT UNIX_TIMESTAMP(NOW(6)) AS now_s,
                           (SELECT MIN(run_ms) / 1000 FROM ${table.tallies} WHERE queue = '' AND writer = '') AS began),
     starts AS (SELECT now_s, GREATEST(${slotOf("now_s - ?")}, COALESCE(began, 0)) AS rate_from,
                       GREATEST(${slotOf("now_s - ?")}, COALESCE(began, 0)) AS run_from FROM clock),
     bounds AS (SELECT now_s, rate_from, run_from, ${slotOf("rate_from")} AS rate_slot, ${slotOf("run_from")} AS run_slot FROM starts)
     SELECT x.queue, b.now_s - b.rate_from AS rate_seconds, b.now_s - b.run_from AS processing_seconds, SUM(x.arrived) AS arrived,
            SUM(x.succeeded) AS succeeded, SUM(x.deleted) AS deleted, SUM(x.timed) AS timed, SUM(x.run_ms) AS run_ms
     FROM (
       SELECT t.queue, 0 AS arrived,
              CASE WHEN t.slot >= b.rate_slot THEN t.succeeded ELSE 0 END AS succeeded,
              CASE WHEN t.slot >= b.rate_slot THEN t.deleted ELSE 0 END AS deleted,
              CASE WHEN t.slot >= b.run_slot THEN t.timed ELSE 0 END AS timed,
              CASE WHEN t.slot >= b.run_slot THEN t.run_ms ELSE 0 END AS run_ms
       FROM ${table.tallies} t CROSS JOIN bounds b WHERE t.slot >= LEAST(b.rate_slot, b.run_slot) AND t.queue <> ''
       UNION ALL
       SELECT k.queue, 1, 0, 0, 0, 0
       FROM ${table.sql} k CROSS JOIN bounds b
       WHERE k.id >= ? AND k.created_at >= TIMESTAMPADD(MICROSECOND, b.rate_from * 1000000, '1970-01-01 00:00:00')
     ) AS x CROSS JOIN bounds b
     GROUP BY x.queue, b.now_s, b.rate_from, b.run_from
     ORDER BY x.queue`,
    [windows.rateSeconds, windows.processingSeconds, activityIdBound(windows)],
  );
  return rows.map(toActivity);
}
