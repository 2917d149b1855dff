// SQL unit: claim up to `limit` due pending tasks without being told their ids (polling, and catch-up at start).
// Highest priority first, then oldest run_at; rows locked by another claimer are skipped.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import type { ClaimFilter } from "./claim-tasks.js";
import { taskColumns, type TaskRow } from "./task-row.js";

/** Claims at most `limit` due pending tasks the filter allows; returns the claimed rows. */
export function claimDueTasks(db: Db, table: TaskTable, limit: number, filter: ClaimFilter): Promise<TaskRow[]> {
  const t = table.sql;
  return db.query<TaskRow>(
    `WITH target AS (
       SELECT id FROM ${t}
       WHERE status = 'pending' AND run_at <= now() AND name = ANY($1::text[]) AND queue = ANY($2::text[])
       ORDER BY priority DESC, run_at
       LIMIT $3
       FOR UPDATE SKIP LOCKED
     )
     UPDATE ${t} t
     SET status = 'running', attempts = t.attempts + 1, lease_owner = $4,
         lease_expires_at = now() + $5::int * interval '1 millisecond', updated_at = now()
     FROM target WHERE t.id = target.id
     RETURNING ${taskColumns("t")}`,
    [filter.names, filter.queues, limit, filter.owner, Math.round(filter.leaseMs)],
  );
}
