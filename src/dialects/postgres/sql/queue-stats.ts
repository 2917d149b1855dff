// SQL units for the state of the queue at a glance (CLI `status`, dashboard overview).

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { PendingAge, StatusCount } from "../../../store/views.js";

/** Task counts by queue, name and status. */
export function countTasks(db: Db, table: PgTable): Promise<StatusCount[]> {
  return db.query<StatusCount>(
    `SELECT queue, name, status, count(*)::int AS count FROM ${table.sql}
     GROUP BY queue, name, status ORDER BY queue, name, status`,
    [],
  );
}

/** Per queue: how many pending tasks are due and how long the oldest has waited. */
export function pendingAges(db: Db, table: PgTable): Promise<PendingAge[]> {
  return db.query<PendingAge>(
    `SELECT queue, count(*)::int AS due,
            COALESCE(extract(epoch FROM now() - min(run_at)), 0)::float8 AS "oldestDueSeconds"
     FROM ${table.sql} WHERE status = 'pending' AND run_at <= now()
     GROUP BY queue ORDER BY queue`,
    [],
  );
}

/** The database's clock. */
export async function now(db: Db): Promise<Date> {
  const rows = await db.query<{ now: Date }>("SELECT now() AS now", []);
  const now = rows[0]?.now;
  return now instanceof Date ? now : new Date(now ?? Date.now());
}
