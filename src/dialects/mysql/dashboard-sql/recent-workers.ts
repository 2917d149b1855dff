// SQL unit: the workers seen recently: lease owners of running tasks, and the workers that finished tasks within a
// window (finished_by: completion clears lease_owner).
// Reads the lease and finished_at indexes only, so the table's size does not matter.

import type { RecentWorker } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { fromTimeText, NOW, nowMinusMs, num, timeText } from "../sql/values.js";

/** Lease owners of running tasks and finishers of tasks finished in the last `windowSeconds`, most recently seen first. */
export async function recentWorkers(db: CountingDb, table: MysqlTable, windowSeconds: number, limit = 50): Promise<RecentWorker[]> {
  const rows = await db.query<{ worker: string; running: unknown; expired: unknown; finished: unknown; last_seen: string; idle_us: unknown }>(
    `SELECT worker,
            SUM(status = 'running') AS running,
            SUM(status = 'running' AND lease_expires_at < ${NOW}) AS expired,
            SUM(status <> 'running') AS finished,
            ${timeText("MAX(seen)")} AS last_seen,
            TIMESTAMPDIFF(MICROSECOND, MAX(seen), ${NOW}) AS idle_us
     FROM (
       SELECT lease_owner AS worker, status, lease_expires_at, updated_at AS seen FROM ${table.sql} WHERE status = 'running'
       UNION ALL
       SELECT finished_by, status, NULL, finished_at FROM ${table.sql}
       WHERE finished_at > ${nowMinusMs("? * 1000")} AND status IN ('succeeded', 'dead', 'cancelled')
     ) AS seen
     WHERE worker IS NOT NULL
     GROUP BY worker
     ORDER BY MAX(seen) DESC
     LIMIT ?`,
    [windowSeconds, Math.floor(limit)],
  );
  return rows.map((row) => ({
    worker: row.worker,
    running: num(row.running),
    expired: num(row.expired),
    finished: num(row.finished),
    lastSeen: fromTimeText(row.last_seen),
    idleSeconds: num(row.idle_us) / 1e6,
  }));
}
