// SQL unit: the workers seen recently: lease owners of running tasks, and the workers that finished tasks within a
// window (finished_by: completion clears lease_owner). Reads the running-lease and finished-tasks indexes only.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { RecentWorker } from "../../../store/views.js";

/** Lease owners of running tasks and finishers of tasks finished in the last `windowSeconds`, most recently seen first. */
export function recentWorkers(db: Db, table: PgTable, windowSeconds: number, limit = 50): Promise<RecentWorker[]> {
  return db.query<RecentWorker>(
    `SELECT worker,
            count(*) FILTER (WHERE status = 'running')::int AS running,
            count(*) FILTER (WHERE status = 'running' AND lease_expires_at < now())::int AS expired,
            count(*) FILTER (WHERE status <> 'running')::int AS finished,
            max(seen) AS "lastSeen",
            extract(epoch FROM now() - max(seen))::float8 AS "idleSeconds"
     FROM (
       SELECT lease_owner AS worker, status, lease_expires_at, updated_at AS seen FROM ${table.sql} WHERE status = 'running'
       UNION ALL
       SELECT finished_by, status, NULL, finished_at FROM ${table.sql}
       WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at > now() - $1 * interval '1 second'
     ) AS seen
     WHERE worker IS NOT NULL
     GROUP BY worker
     ORDER BY max(seen) DESC
     LIMIT $2`,
    [windowSeconds, limit],
  );
}
