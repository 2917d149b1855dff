// SQL unit: what is stuck, per queue and task name, and since when: running tasks whose lease expired, due pending
// tasks and how long the oldest has waited, and due tasks whose wake-up was never sent. Reads the partial indexes only.

import type { Db } from "../../db/driver.js";
import type { TaskTable } from "../../db/table.js";

export interface StuckGroup {
  queue: string;
  name: string;
  /** Running tasks whose lease expired: their worker died or stalled; the cleaner should recover them. */
  expired: number;
  /** Seconds since the longest-expired lease ran out (0 when none). */
  oldest_expired_seconds: number;
  /** Pending tasks that are due (run_at <= now). */
  due: number;
  /** Seconds since the oldest due task became due (0 when none). */
  oldest_due_seconds: number;
  /** Pending tasks not yet due (delayed or waiting for a retry). */
  scheduled: number;
  /** Due tasks never published and due for longer than the grace: no wake-up reached a worker; is a cleaner running? */
  unpublished: number;
  /** Pending tasks that failed before and wait for a retry (attempts > 0). */
  retrying: number;
}

/** Per queue and name: expired leases, due and scheduled pending tasks, with the age of the oldest of each. */
export function stuckTasks(db: Db, table: TaskTable, unpublishedGraceSeconds: number): Promise<StuckGroup[]> {
  return db.query<StuckGroup>(
    `SELECT queue, name,
            count(*) FILTER (WHERE status = 'running' AND lease_expires_at < now())::int AS expired,
            COALESCE(extract(epoch FROM now() - min(lease_expires_at) FILTER (WHERE status = 'running' AND lease_expires_at < now())), 0)::float8
              AS oldest_expired_seconds,
            count(*) FILTER (WHERE status = 'pending' AND run_at <= now())::int AS due,
            COALESCE(extract(epoch FROM now() - min(run_at) FILTER (WHERE status = 'pending' AND run_at <= now())), 0)::float8
              AS oldest_due_seconds,
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
