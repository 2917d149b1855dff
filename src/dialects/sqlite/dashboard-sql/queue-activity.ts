// SQL unit: each queue's activity for the scaling signal: tasks enqueued and succeeded within the rate window, and the
// run time of the successes within the processing window. Rows by the primary key (task ids are time-ordered), tallies
// by their slot: the cost follows the windows' traffic, not the table size.

import type { Db } from "../../../store/db.js";
import { activityIdBound, toActivity, type ActivityRow } from "../../../store/activity-rows.js";
import { TALLY_SLOT_SECONDS, type ActivityWindows, type QueueActivity } from "../../../store/tallies.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";

const SLOT = TALLY_SLOT_SECONDS;

/** Per queue: arrivals and successes over the rate window, timed successes over the processing window. */
export function queueActivity(db: Db, table: SqliteTable, windows: ActivityWindows): Promise<QueueActivity[]> {
  return db
    .query<ActivityRow>(
      ...bind(
        `WITH clock AS (SELECT (julianday('now') - 2440587.5) * 86400.0 AS now_s,
                               (SELECT min(run_ms) / 1000.0 FROM ${table.tallies} WHERE queue = '' AND writer = '') AS began),
         starts AS (SELECT now_s, max(CAST(now_s - {rate} AS INTEGER) / ${SLOT} * ${SLOT}, coalesce(began, 0)) AS rate_from,
                           max(CAST(now_s - {run} AS INTEGER) / ${SLOT} * ${SLOT}, coalesce(began, 0)) AS run_from FROM clock),
         bounds AS (SELECT now_s, rate_from, run_from, CAST(rate_from AS INTEGER) / ${SLOT} * ${SLOT} AS rate_slot, CAST(run_from AS INTEGER) / ${SLOT} * ${SLOT} AS run_slot FROM starts)
         SELECT x.queue, b.now_s - b.rate_from AS rate_seconds, b.now_s - b.run_from AS processing_seconds, sum(x.arrived) AS arrived,
                sum(x.succeeded) AS succeeded, sum(x.deleted) AS deleted, sum(x.timed) AS timed, sum(x.run_ms) AS run_ms
         FROM (
           SELECT t.queue, 0 AS arrived,
                  CASE WHEN t.slot >= b.rate_slot THEN t.succeeded ELSE 0 END AS succeeded,
                  CASE WHEN t.slot >= b.rate_slot THEN t.deleted ELSE 0 END AS deleted,
                  CASE WHEN t.slot >= b.run_slot THEN t.timed ELSE 0 END AS timed,
                  CASE WHEN t.slot >= b.run_slot THEN t.run_ms ELSE 0 END AS run_ms
           FROM ${table.tallies} t CROSS JOIN bounds b WHERE t.slot >= min(b.rate_slot, b.run_slot) AND t.queue <> ''
           UNION ALL
           SELECT k.queue, 1, 0, 0, 0, 0
           FROM ${table.sql} k CROSS JOIN bounds b
           WHERE k.id >= {bound} AND k.created_at >= strftime('%Y-%m-%dT%H:%M:%f+00:00', b.rate_from, 'unixepoch')
         ) AS x CROSS JOIN bounds b
         GROUP BY x.queue
         ORDER BY x.queue`,
        { rate: windows.rateSeconds, run: windows.processingSeconds, bound: activityIdBound(windows) },
      ),
    )
    .then((rows) => rows.map(toActivity));
}
