// SQL unit: claim tasks by id (ids that wake-ups named), in one statement for a whole batch.
// Reports, for every id it could not claim, why: missing row, not pending, not due, not ours, or locked by someone.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import { taskColumns, type TaskRow } from "./task-row.js";

/** Who claims, for how long, and which tasks it may take. */
export interface ClaimFilter {
  /** Written to lease_owner. */
  owner: string;
  /** lease_expires_at = now() + leaseMs. */
  leaseMs: number;
  /** Task names the claimer has handlers for; nothing else is claimed. */
  names: readonly string[];
  /** Task queues the claimer serves; nothing else is claimed. */
  queues: readonly string[];
}

/** Why an id was not claimed, as seen by the statement's snapshot. */
export type UnclaimedReason = "missing" | "not-pending" | "not-due" | "not-ours" | "locked";

/**
 * One row per distinct input id: the claimed task, or why it was not claimed (with the name and queue of the row the
 * statement saw, when there is one, so a rejection can be logged with them).
 */
export type ClaimByIdResult =
  | { id: string; claimed: TaskRow }
  | { id: string; claimed: null; reason: UnclaimedReason; name?: string; queue?: string };

interface ClaimRow extends TaskRow {
  input_id: string;
  claimed: boolean;
  reason: UnclaimedReason | null;
  seen_name: string | null;
  seen_queue: string | null;
}

/**
 * Claims the pending, due tasks among `ids` that the filter allows: status running, attempts + 1, lease set.
 * Rows another transaction holds locked are skipped (reason "locked"), never waited for.
 */
export async function claimTasksByIds(db: Db, table: TaskTable, ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
  const t = table.sql;
  const rows = await db.query<ClaimRow>(
    `WITH input AS (
       SELECT DISTINCT unnest($1::uuid[]) AS id
     ), target AS (
       SELECT t.id FROM ${t} t JOIN input ON input.id = t.id
       WHERE t.status = 'pending' AND t.run_at <= now() AND t.name = ANY($2::text[]) AND t.queue = ANY($3::text[])
       ORDER BY t.id
       FOR UPDATE OF t SKIP LOCKED
     ), claimed AS (
       UPDATE ${t} t
       SET status = 'running', attempts = t.attempts + 1, lease_owner = $4,
           lease_expires_at = now() + $5::int * interval '1 millisecond', updated_at = now()
       FROM target WHERE t.id = target.id
       RETURNING t.*
     )
     SELECT input.id::text AS input_id, claimed.id IS NOT NULL AS claimed, ${taskColumns("claimed")},
       CASE WHEN claimed.id IS NOT NULL THEN NULL
            WHEN seen.id IS NULL THEN 'missing'
            WHEN seen.status <> 'pending' THEN 'not-pending'
            WHEN seen.run_at > now() THEN 'not-due'
            WHEN NOT (seen.name = ANY($2::text[]) AND seen.queue = ANY($3::text[])) THEN 'not-ours'
            ELSE 'locked' END AS reason,
       seen.name AS seen_name, seen.queue AS seen_queue
     FROM input
     LEFT JOIN claimed ON claimed.id = input.id
     LEFT JOIN ${t} seen ON seen.id = input.id`,
    [ids, filter.names, filter.queues, filter.owner, Math.round(filter.leaseMs)],
  );
  return rows.map((row): ClaimByIdResult => {
    if (row.claimed) return { id: row.input_id, claimed: row };
    const unclaimed: ClaimByIdResult = { id: row.input_id, claimed: null, reason: row.reason ?? "locked" };
    if (row.seen_name !== null) Object.assign(unclaimed, { name: row.seen_name, queue: row.seen_queue ?? undefined });
    return unclaimed;
  });
}
