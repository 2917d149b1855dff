// SQL unit: what is stuck, per queue and task name, and since when: running tasks whose lease expired, due pending
// tasks and how long the oldest has waited, and due tasks whose wake-up was never sent. Reads the partial indexes only.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { StuckGroup } from "../../../store/views.js";

/** Per queue and name: expired leases, due and scheduled pending tasks, with the age of the oldest of each. */
export function stuckTasks(db: Db, table: PgTable, unpublishedGraceSeconds: number): Promise<StuckGroup[]> {
  return db.query<StuckGroup>(
    `SELECT queue, name,
            count(*) FILTER (WHERE status = 'running' AND lease_expires_at < now())::int AS expired,
            COALESCE(extract(epoch FROM now() - min(lease_expires_at) FILTER (WHERE status = 'running' AND lease_expires_at < now())), 0)::float8
              AS "oldestExpiredSeconds",
            count(*) FILTER (WHERE status = 'pending' AND run_at <= now())::int AS due,
            COALESCE(extract(epoch FROM now() - min(run_at) FILTER (WHERE status = 'pending' AND run_at <= now())), 0)::float8
              AS "oldestDueSeconds",
            count(*) FILTER (WHERE status = 'pending' AND run_at > now())::int AS scheduled,
            count(*) FILTER (WHERE status = 'pending' AND published_at IS NULL AND run_at < now() - $1 * interval '1 second')::int
              AS unpublished,
            count(*) FILTER (WHERE status = 'pending' AND attempts > 0)::int AS retrying
     FROM (
       SELECT queue, name, status, lease_expires_at, run_at, published_at, attempts FROM ${table.sql}
       WHERE status = 'running' AND lease_expires_at < now()
       UNION ALL
       SELECT queue, name, status, lease_expires_at, run_at, published_at, attempts FROM ${table.sql} WHERE status = 'pending'
     ) AS open
     GROUP BY queue, name
     ORDER BY queue, name`,
    [unpublishedGraceSeconds],
  );
}
