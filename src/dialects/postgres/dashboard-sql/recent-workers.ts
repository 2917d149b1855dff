// SQL unit: the workers seen recently, as lease owners of running tasks and of tasks finished within a window.
// Reads the running-lease and finished-tasks indexes only, so the table's size does not matter.

import type { Db } from "../db.js";
import type { PgTable } from "../table.js";
import type { RecentWorker } from "../../../store/views.js";

/** Lease owners of running tasks and of tasks finished in the last `windowSeconds`, most recently seen first. */
export function recentWorkers(db: Db, table: PgTable, windowSeconds: number, limit = 50): Promise<RecentWorker[]> {
  return db.query<RecentWorker>(
    `SELECT lease_owner AS worker,
            count(*) FILTER (WHERE status = 'running')::int AS running,
            count(*) FILTER (WHERE status = 'running' AND lease_expires_at < now())::int AS expired,
            count(*) FILTER (WHERE status <> 'running')::int AS finished,
            max(seen) AS "lastSeen",
            extract(epoch FROM now() - max(seen))::float8 AS "idleSeconds"
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
