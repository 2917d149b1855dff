// SQL units for tasks whose worker vanished: find running tasks whose lease expired, hold one for a recovery
// function, and put tasks back to pending or to dead. Every update re-checks "running and expired" (or "held by this
// holder"), so a worker that renewed its lease in between keeps it.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { TaskRecord } from "../../../store/task-record.js";
import type { HeldLease, RecoveredTask } from "../../../store/task-writes.js";
import { taskColumns, toTaskRecord, type TaskRow } from "./task-row.js";
import { appendError } from "./error-history.js";

/** Running and its lease ran out, by the database clock. */
export const EXPIRED = `status = 'running' AND lease_expires_at < now()`;

/** Running tasks whose lease expired, longest expired first, at most `limit`. Reads only; nothing is locked. */
export async function findExpiredLeases(db: Db, table: PgTable, limit: number): Promise<TaskRecord[]> {
  const rows = await db.query<TaskRow>(`SELECT ${taskColumns()} FROM ${table.sql} WHERE ${EXPIRED} ORDER BY lease_expires_at LIMIT $1`, [limit]);
  return rows.map(toTaskRecord);
}

/**
 * Hands one expired task's lease to `holder` for holdMs (skipping it when a worker holds its row right now), so a
 * recovery function can decide while no late worker can complete it. Returns the task as it was before (leaseOwner:
 * the worker that lost it); undefined when it is no longer running and expired.
 */
export async function holdExpiredLease(db: Db, table: PgTable, id: string, holder: string, holdMs: number): Promise<TaskRecord | undefined> {
  const rows = await db.query<TaskRow>(
    `WITH old AS (
       SELECT ${taskColumns()} FROM ${table.sql} WHERE id = $1::uuid AND ${EXPIRED} FOR UPDATE SKIP LOCKED
     ), held AS (
       UPDATE ${table.sql} t SET lease_owner = $2, lease_expires_at = now() + $3::int * interval '1 millisecond'
       FROM old WHERE t.id = old.id::uuid
       RETURNING t.id
     )
     SELECT old.* FROM old JOIN held ON held.id = old.id::uuid`,
    [id, holder, Math.round(holdMs)],
  );
  return rows[0] && toTaskRecord(rows[0]);
}

const RETURNING = `RETURNING t.id::text AS id, t.name, t.queue, t.status, t.attempts, t.max_attempts AS "maxAttempts",
  t.last_error AS "lastError", COALESCE($3::text, old.lease_owner) AS "leaseOwner"`;

/** The tasks among $1 that the recovery may change: expired ones, or those `held` holds ($2). */
const TARGETS = `SELECT id, lease_owner FROM PLACEHOLDER
  WHERE id = ANY($1::uuid[]) AND status = 'running' AND (CASE WHEN $2::text IS NULL THEN lease_expires_at < now() ELSE lease_owner = $2 END)
  FOR UPDATE SKIP LOCKED`;

/** The worker that stopped renewing: the former owner of a held task ($3), else the expired lease's owner. */
const LOST_BY = `'lease expired: worker ' || COALESCE($3::text, t.lease_owner, '(unknown)') || ' stopped renewing it during attempt '
  || t.attempts || ' of ' || t.max_attempts`;

const ABANDONED = `${LOST_BY} || '; abandoned by the recovery policy' || COALESCE('; ' || $4::text, '')`;

/**
 * "retry": tasks among `ids` (expired, or held by `held.holder`) go back to pending, due now, with their attempts kept
 * (the lost run counted); those that already used all their attempts go to dead instead.
 */
export function requeueExpired(db: Db, table: PgTable, ids: readonly string[], held?: HeldLease): Promise<RecoveredTask[]> {
  return db.query<RecoveredTask>(
    `WITH old AS (${TARGETS.replace("PLACEHOLDER", table.sql)})
     UPDATE ${table.sql} t SET
       status = CASE WHEN t.attempts >= t.max_attempts THEN 'dead' ELSE 'pending' END,
       finished_at = CASE WHEN t.attempts >= t.max_attempts THEN now() END,
       last_error = ${LOST_BY}, errors = ${appendError(LOST_BY)}, finished_by = NULL,
       run_at = now(), lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = now()
     FROM old WHERE t.id = old.id
     ${RETURNING}`,
    [ids, held?.holder ?? null, held?.formerOwner ?? null],
  );
}

/**
 * "dead": tasks among `ids` (expired, or held by `held.holder`) are abandoned (dead, finished now) whatever attempts
 * remain. `detail` is appended to last_error (e.g. why a recovery function failed).
 */
export function abandonExpired(db: Db, table: PgTable, ids: readonly string[], detail?: string, held?: HeldLease): Promise<RecoveredTask[]> {
  return db.query<RecoveredTask>(
    `WITH old AS (${TARGETS.replace("PLACEHOLDER", table.sql)})
     UPDATE ${table.sql} t SET
       status = 'dead', finished_at = now(),
       last_error = ${ABANDONED}, errors = ${appendError(ABANDONED)}, finished_by = NULL,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     FROM old WHERE t.id = old.id
     ${RETURNING}`,
    [ids, held?.holder ?? null, held?.formerOwner ?? null, detail ?? null],
  );
}
