// SQL unit: the workers seen recently, as lease owners of running tasks and of tasks finished within a window.
// Reads the running-lease and finished-tasks indexes only, so the table's size does not matter.

import type { Db } from "../../db/driver.js";
import type { TaskTable } from "../../db/table.js";

export interface RecentWorker {
  worker: string;
  /** Tasks it holds now. */
  running: number;
  /** Of those, how many have a lease that expired (the worker may be dead or stalled). */
  expired: number;
  /** Tasks it finished within the window (counted only if the worker keeps lease_owner on finished rows). */
  finished: number;
  /** Latest sign of life: a heartbeat (updated_at of a running task) or a finish. */
  last_seen: Date;
  /** Seconds since last_seen, by the database's clock. */
  idle_seconds: number;
}

/** Lease owners of running tasks and of tasks finished in the last `windowSeconds`, most recently seen first. */
export function recentWorkers(db: Db, table: TaskTable, windowSeconds: number, limit = 50): Promise<RecentWorker[]> {
  return db.query<RecentWorker>(
    `SELECT lease_owner AS worker,
            count(*) FILTER (WHERE status = 'running')::int AS running,
            count(*) FILTER (WHERE status = 'running' AND lease_expires_at < now())::int AS expired,
            count(*) FILTER (WHERE status <> 'running')::int AS finished,
            max(seen) AS last_seen,
            extract(epoch FROM now() - max(seen))::float8 AS idle_seconds
     FROM (
       SELECT lease_owner, status, lease_expires_at, updated_at AS seen FROM ${table.sql} WHERE status = 'running'
       UNION ALL
       SELECT lease_owner, status, NULL, finished_at FROM ${table.sql}
       WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at > now() - $1 * interval '1 second'
     ) AS seen
     WHERE lease_owner IS NOT NULL
     GROUP BY lease_owner
     ORDER BY max(seen) DESC
     LIMIT $2`,
    [windowSeconds, limit],
  );
}
