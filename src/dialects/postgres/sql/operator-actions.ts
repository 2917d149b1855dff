// SQL units for what an operator does by hand (CLI and dashboard): retry, cancel, run a delayed task now.
// Each returns the tasks it changed with their queue, so the caller can publish their wake-ups.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import { CHILDREN_WAIT } from "../../../store/steps.js";
import { WAKE_PARENT_SET } from "./workflow-children.js";

const REQUEUE = `status = 'pending', attempts = 0, run_at = now(), lease_owner = NULL, lease_expires_at = NULL,
  finished_at = NULL, published_at = NULL, updated_at = now()`;

/** Puts a dead or cancelled task back to pending with its attempts reset. Empty when the task is missing or not dead/cancelled. */
export function retryTask(db: Db, table: PgTable, id: string): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `UPDATE ${table.sql} SET ${REQUEUE}
     WHERE id = $1::uuid AND status IN ('dead', 'cancelled')
     RETURNING id::text AS id, queue`,
    [id],
  );
}

/** Puts every dead task (of `name`, when given) back to pending, at most `limit` per call (default 10000). */
export function retryDeadTasks(db: Db, table: PgTable, options: { name?: string; limit?: number } = {}): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `UPDATE ${table.sql} SET ${REQUEUE}
     WHERE id IN (
       SELECT id FROM ${table.sql}
       WHERE status = 'dead' AND ($1::text IS NULL OR name = $1)
       ORDER BY finished_at LIMIT $2
       FOR UPDATE SKIP LOCKED)
     RETURNING id::text AS id, queue`,
    [options.name ?? null, options.limit ?? 10_000],
  );
}

/** Cancels a pending task so it never runs. Empty when the task is missing or not pending (a running task cannot be cancelled). */
export function cancelTask(db: Db, table: PgTable, id: string): Promise<WakeupTarget[]> {
  const cancel = `status = 'cancelled', finished_at = now(), finished_by = NULL, updated_at = now()`;
  // The task first; then, from it, its pending children and theirs (a running child finishes its run, its own children
  // stay its own); and its parent, when it waits for its children, made due to see the cancel. The task's target
  // comes first.
  return db.query<WakeupTarget>(
    `WITH RECURSIVE top AS (
       UPDATE ${table.sql} SET ${cancel} WHERE id = $1::uuid AND status = 'pending' RETURNING id, queue, parent_id
     ), woken AS (
       UPDATE ${table.sql} p SET ${WAKE_PARENT_SET}
       FROM top WHERE p.id = top.parent_id AND p.status = 'pending' AND p.waiting_for = $2
     ), family AS (
       SELECT id FROM top
       UNION
       SELECT c.id FROM ${table.sql} c JOIN family f ON c.parent_id = f.id WHERE c.parent_id IS NOT NULL AND c.status = 'pending'
     ), children AS (
       UPDATE ${table.sql} SET ${cancel} WHERE id IN (SELECT id FROM family) AND id <> $1::uuid AND status = 'pending' RETURNING id, queue
     )
     SELECT id::text AS id, queue FROM top
     UNION ALL
     SELECT id::text AS id, queue FROM children`,
    [id, CHILDREN_WAIT],
  );
}

/** Makes a delayed (or retry-waiting) pending task due now. Empty when the task is missing or not pending. */
export function runTaskNow(db: Db, table: PgTable, id: string): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `UPDATE ${table.sql} SET run_at = now(), published_at = NULL, updated_at = now()
     WHERE id = $1::uuid AND status = 'pending'
     RETURNING id::text AS id, queue`,
    [id],
  );
}
