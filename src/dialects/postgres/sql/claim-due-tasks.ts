// SQL unit: claim up to `limit` due pending tasks without being told their ids (polling, and catch-up at start).
// Highest priority first, then oldest run_at; rows locked by another claimer, paused queues and
// queues limited in the database (claimed through their limited claim only) are skipped.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { TaskRecord } from "../../../store/task-record.js";
import type { ClaimFilter } from "../../../store/task-writes.js";
import { taskColumns, toTaskRecord, type TaskRow } from "./task-row.js";
import { heldBack } from "./claim-tasks.js";

/** Claims at most `limit` due pending tasks the filter allows; returns the claimed rows. */
export async function claimDueTasks(db: Db, table: PgTable, limit: number, filter: ClaimFilter): Promise<TaskRecord[]> {
  const t = table.sql;
  const rows = await db.query<TaskRow>(
    `WITH target AS (
       SELECT id FROM ${t} c
       WHERE status = 'pending' AND run_at <= now() AND name = ANY($1::text[]) AND queue = ANY($2::text[])
         AND NOT ${heldBack(table, "c", filter.counted)}
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
  return rows.map(toTaskRecord);
}
