// SQL unit: what is stuck, per queue and task name, and since when: running tasks whose lease expired, due pending
// tasks and how long the oldest has waited, and due tasks whose wake-up was never sent. Reads the status indexes only.

import type { StuckGroup } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, nowMinusMs, num } from "../sql/values.js";

const EXPIRED = `status = 'running' AND lease_expires_at < ${NOW}`;
const DUE = `status = 'pending' AND run_at <= ${NOW}`;

/** Per queue and name: expired leases, due and scheduled pending tasks, with the age of the oldest of each. */
export async function stuckTasks(db: CountingDb, table: MysqlTable, unpublishedGraceSeconds: number): Promise<StuckGroup[]> {
  const rows = await db.query<Record<string, unknown> & { queue: string; name: string }>(
    `SELECT queue, name,
            SUM(${EXPIRED}) AS expired,
            TIMESTAMPDIFF(MICROSECOND, MIN(CASE WHEN ${EXPIRED} THEN lease_expires_at END), ${NOW}) AS oldest_expired_us,
            SUM(${DUE}) AS due,
            TIMESTAMPDIFF(MICROSECOND, MIN(CASE WHEN ${DUE} THEN run_at END), ${NOW}) AS oldest_due_us,
            SUM(status = 'pending' AND run_at > ${NOW}) AS scheduled,
            SUM(status = 'pending' AND published_at IS NULL AND run_at < ${nowMinusMs("? * 1000")}) AS unpublished,
            SUM(status = 'pending' AND attempts > 0) AS retrying
     FROM (
       SELECT queue, name, status, lease_expires_at, run_at, published_at, attempts FROM ${table.sql} WHERE ${EXPIRED}
       UNION ALL
       SELECT queue, name, status, lease_expires_at, run_at, published_at, attempts FROM ${table.sql} WHERE status = 'pending'
     ) AS open_tasks
     GROUP BY queue, name
     ORDER BY queue, name`,
    [unpublishedGraceSeconds],
  );
  return rows.map((row) => ({
    queue: row.queue,
    name: row.name,
    expired: num(row.expired),
    oldestExpiredSeconds: num(row.oldest_expired_us) / 1e6,
    due: num(row.due),
    oldestDueSeconds: num(row.oldest_due_us) / 1e6,
    scheduled: num(row.scheduled),
    unpublished: num(row.unpublished),
    retrying: num(row.retrying),
  }));
}
