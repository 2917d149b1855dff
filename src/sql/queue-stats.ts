// SQL units for the state of the queue at a glance (CLI `status`, dashboard overview).

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";

export interface StatusCount {
  queue: string;
  name: string;
  status: string;
  count: number;
}

/** Task counts by queue, name and status. */
export function countTasks(db: Db, table: TaskTable): Promise<StatusCount[]> {
  return db.query<StatusCount>(
    `SELECT queue, name, status, count(*)::int AS count FROM ${table.sql}
     GROUP BY queue, name, status ORDER BY queue, name, status`,
    [],
  );
}

export interface PendingAge {
  queue: string;
  /** Due pending tasks in the queue. */
  due: number;
  /** Seconds since the oldest due pending task became due; 0 when none is due. */
  oldest_due_seconds: number;
}

/** Per queue: how many pending tasks are due and how long the oldest has waited. */
export function pendingAges(db: Db, table: TaskTable): Promise<PendingAge[]> {
  return db.query<PendingAge>(
    `SELECT queue, count(*)::int AS due,
            COALESCE(extract(epoch FROM now() - min(run_at)), 0)::float8 AS oldest_due_seconds
     FROM ${table.sql} WHERE status = 'pending' AND run_at <= now()
     GROUP BY queue ORDER BY queue`,
    [],
  );
}
