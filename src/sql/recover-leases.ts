// SQL units for tasks whose worker vanished: find running tasks whose lease expired, and put them back to pending
// or to dead. Every update re-checks "running and expired", so a worker that renewed its lease in between keeps it.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import { taskColumns, type TaskRow } from "./task-row.js";

const EXPIRED = `status = 'running' AND lease_expires_at < now()`;

/** Running tasks whose lease expired, longest expired first, at most `limit`. Reads only; nothing is locked. */
export function findExpiredLeases(db: Db, table: TaskTable, limit: number): Promise<TaskRow[]> {
  return db.query<TaskRow>(
    `SELECT ${taskColumns()} FROM ${table.sql} WHERE ${EXPIRED} ORDER BY lease_expires_at LIMIT $1`,
    [limit],
  );
}

/**
 * Locks one expired task inside the caller's transaction (skipping it when a worker holds it), so that a recovery
 * function can decide while no worker can complete the task. Undefined when it is no longer running and expired.
 */
export async function lockExpiredLease(tx: Db, table: TaskTable, id: string): Promise<TaskRow | undefined> {
  const rows = await tx.query<TaskRow>(
    `SELECT ${taskColumns()} FROM ${table.sql} WHERE id = $1::uuid AND ${EXPIRED} FOR UPDATE SKIP LOCKED`,
    [id],
  );
  return rows[0];
}

/** A task the recovery changed: its new status and what a dead-letter notification needs. */
export interface RecoveredTask {
  id: string;
  name: string;
  queue: string;
  status: "pending" | "dead";
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  last_error: string | null;
}

const RETURNING = `RETURNING t.id::text AS id, t.name, t.queue, t.status, t.attempts, t.max_attempts, t.last_error,
  old.lease_owner`;

/**
 * "retry": expired tasks among `ids` go back to pending, due now, with their attempts kept (the lost run counted);
 * those that already used all their attempts go to dead instead.
 */
export function requeueExpired(db: Db, table: TaskTable, ids: readonly string[]): Promise<RecoveredTask[]> {
  return db.query<RecoveredTask>(
    `WITH old AS (
       SELECT id, lease_owner FROM ${table.sql} WHERE id = ANY($1::uuid[]) AND ${EXPIRED} FOR UPDATE SKIP LOCKED
     )
     UPDATE ${table.sql} t SET
       status = CASE WHEN t.attempts >= t.max_attempts THEN 'dead' ELSE 'pending' END,
       finished_at = CASE WHEN t.attempts >= t.max_attempts THEN now() END,
       last_error = 'lease expired: worker ' || COALESCE(t.lease_owner, '(unknown)') || ' stopped renewing it during attempt '
         || t.attempts || ' of ' || t.max_attempts,
       run_at = now(), lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = now()
     FROM old WHERE t.id = old.id
     ${RETURNING}`,
    [ids],
  );
}

/**
 * "dead": expired tasks among `ids` are abandoned (dead, finished now) whatever attempts remain. `detail` is appended
 * to last_error (e.g. why a recovery function failed).
 */
export function abandonExpired(db: Db, table: TaskTable, ids: readonly string[], detail?: string): Promise<RecoveredTask[]> {
  return db.query<RecoveredTask>(
    `WITH old AS (
       SELECT id, lease_owner FROM ${table.sql} WHERE id = ANY($1::uuid[]) AND ${EXPIRED} FOR UPDATE SKIP LOCKED
     )
     UPDATE ${table.sql} t SET
       status = 'dead', finished_at = now(),
       last_error = 'lease expired: worker ' || COALESCE(t.lease_owner, '(unknown)') || ' stopped renewing it during attempt '
         || t.attempts || ' of ' || t.max_attempts || '; abandoned by the recovery policy' || COALESCE('; ' || $2::text, ''),
       lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     FROM old WHERE t.id = old.id
     ${RETURNING}`,
    [ids, detail ?? null],
  );
}
