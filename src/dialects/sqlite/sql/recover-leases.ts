// SQL units for tasks whose worker vanished: find running tasks whose lease expired, hold one for a recovery
// function, and put tasks back to pending or to dead. Every update re-checks "running and expired" (or "held by this
// holder"), so a worker that renewed its lease in between keeps it.

import type { TaskRecord } from "../../../store/task-record.js";
import type { HeldLease, RecoveredTask } from "../../../store/task-writes.js";
import { NOW, nowPlus } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { jsonList, taskColumns, toTaskRecord, type SqliteTaskRow } from "./task-row.js";
import { appendError } from "./error-history.js";

/** Running and its lease ran out, by the database clock. */
export const EXPIRED = `status = 'running' AND lease_expires_at < ${NOW}`;

/** Running tasks whose lease expired, longest expired first, at most `limit`. */
export async function findExpiredLeases(db: Db, table: SqliteTable, limit: number): Promise<TaskRecord[]> {
  const rows = await db.query<SqliteTaskRow>(...bind(`SELECT ${taskColumns()} FROM ${table.sql} WHERE ${EXPIRED} ORDER BY lease_expires_at LIMIT {limit}`, { limit }));
  return rows.map(toTaskRecord);
}

/** Hands one expired task's lease to `holder` for holdMs; returns the task as it was before, or undefined. */
export async function holdExpiredLease(db: Db, table: SqliteTable, id: string, holder: string, holdMs: number): Promise<TaskRecord | undefined> {
  const before = await db.query<SqliteTaskRow>(...bind(`SELECT ${taskColumns()} FROM ${table.sql} WHERE id = {id} AND ${EXPIRED}`, { id }));
  if (!before[0]) return undefined;
  // Compare-and-set on the owner read above: a worker that renewed the lease in between keeps it.
  const held = await db.query<{ id: string }>(
    ...bind(
      `UPDATE ${table.sql} SET lease_owner = {holder}, lease_expires_at = ${nowPlus("{holdMs}")}
       WHERE id = {id} AND ${EXPIRED} AND lease_owner IS {formerOwner} RETURNING id`,
      { id, holder, holdMs: Math.round(holdMs), formerOwner: before[0].lease_owner },
    ),
  );
  return held.length === 1 ? toTaskRecord(before[0]) : undefined;
}

/** Tasks among {ids} that the recovery may change: expired ones, or those {holder} holds. */
const TARGET = `id IN ${jsonList("{ids}")} AND status = 'running' AND (CASE WHEN {holder} IS NULL THEN lease_expires_at < ${NOW} ELSE lease_owner = {holder} END)`;
const LOST_BY = `'lease expired: worker ' || COALESCE({formerOwner}, lease_owner, '(unknown)') || ' stopped renewing it during attempt ' || attempts || ' of ' || max_attempts`;
const ABANDONED = `${LOST_BY} || '; abandoned by the recovery policy' || COALESCE('; ' || {detail}, '')`;

const targetParams = (ids: readonly string[], held: HeldLease | undefined) => ({
  ids: JSON.stringify(ids),
  holder: held?.holder ?? null,
  formerOwner: held?.formerOwner ?? null,
});
const RETURNING = `RETURNING id, name, queue, status, attempts, max_attempts AS maxAttempts, last_error AS lastError`;

/** "retry": back to pending, due now, attempts kept; dead when attempts are used up. */
export async function requeueExpired(db: Db, table: SqliteTable, ids: readonly string[], held?: HeldLease): Promise<RecoveredTask[]> {
  const owners = await formerOwners(db, table, ids, held);
  const rows = await db.query<Omit<RecoveredTask, "leaseOwner">>(
    ...bind(
      `UPDATE ${table.sql} SET
       status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
       finished_at = CASE WHEN attempts >= max_attempts THEN ${NOW} END,
       last_error = ${LOST_BY}, errors = ${appendError(LOST_BY)}, finished_by = NULL,
       run_at = ${NOW}, lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = ${NOW}
     WHERE ${TARGET}
     ${RETURNING}`,
      targetParams(ids, held),
    ),
  );
  return rows.map((row) => ({ ...row, leaseOwner: owners.get(row.id) ?? null }));
}

/** "dead": abandoned whatever attempts remain; `detail` is appended to the last error. */
export async function abandonExpired(db: Db, table: SqliteTable, ids: readonly string[], detail?: string, held?: HeldLease): Promise<RecoveredTask[]> {
  const owners = await formerOwners(db, table, ids, held);
  const rows = await db.query<Omit<RecoveredTask, "leaseOwner">>(
    ...bind(
      `UPDATE ${table.sql} SET
       status = 'dead', finished_at = ${NOW},
       last_error = ${ABANDONED}, errors = ${appendError(ABANDONED)}, finished_by = NULL,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = ${NOW}
     WHERE ${TARGET}
     ${RETURNING}`,
      { ...targetParams(ids, held), detail: detail ?? null },
    ),
  );
  return rows.map((row) => ({ ...row, leaseOwner: owners.get(row.id) ?? null }));
}

/** The workers that lost the leases (RETURNING sees the row after its update, when lease_owner is already cleared). */
async function formerOwners(db: Db, table: SqliteTable, ids: readonly string[], held: HeldLease | undefined): Promise<Map<string, string | null>> {
  if (held) return new Map(ids.map((id) => [id, held.formerOwner]));
  const rows = await db.query<{ id: string; lease_owner: string | null }>(
    ...bind(`SELECT id, lease_owner FROM ${table.sql} WHERE id IN ${jsonList("{ids}")}`, { ids: JSON.stringify(ids) }),
  );
  return new Map(rows.map((row) => [row.id, row.lease_owner]));
}
