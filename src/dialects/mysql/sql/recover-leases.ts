// SQL units for tasks whose worker vanished: find running tasks whose lease expired, hold one for a recovery
// function, and put tasks back to pending or to dead. Every change locks the rows that are still "running and
// expired" (or "held by this holder") first, skipping any a worker holds, so a worker that renewed its lease in
// between keeps it.

import type { TaskRecord } from "../../../store/task-record.js";
import type { HeldLease, RecoveredTask } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { caseById } from "./case-by-id.js";
import { appendError } from "./error-history.js";
import { taskColumns, toTaskRecord, type TaskRow } from "./task-row.js";
import { NOW, nowPlusMs, num, placeholders } from "./values.js";

/** Running and its lease ran out, by the database clock; `alias` qualifies the columns. */
export function expired(alias?: string): string {
  const a = alias ? `${alias}.` : "";
  return `${a}status = 'running' AND ${a}lease_expires_at < ${NOW}`;
}

/**
 * Running tasks whose lease expired, longest expired first, at most `limit`. Reads only; nothing is locked. The ORDER BY
 * names the column through the table's alias: bare, it would mean the select list's lease_expires_at (the column as
 * text), which the index cannot deliver in order.
 */
export async function findExpiredLeases(db: CountingDb, table: MysqlTable, limit: number): Promise<TaskRecord[]> {
  const rows = await db.query<TaskRow>(`SELECT ${taskColumns("t")} FROM ${table.sql} t WHERE ${expired("t")} ORDER BY t.lease_expires_at LIMIT ?`, [Math.floor(limit)]);
  return rows.map(toTaskRecord);
}

/**
 * Hands one expired task's lease to `holder` for holdMs (skipping it when a worker holds its row right now), so a
 * recovery function can decide, outside any transaction, while no late worker can complete it. Returns the task as
 * it was before (leaseOwner: the worker that lost it); undefined when it is no longer running and expired.
 */
export function holdExpiredLease(db: CountingDb, table: MysqlTable, id: string, holder: string, holdMs: number): Promise<TaskRecord | undefined> {
  return atomically(db, async (tx) => {
    const rows = await tx.query<TaskRow>(`SELECT ${taskColumns()} FROM ${table.sql} WHERE id = ? AND ${expired()} FOR UPDATE SKIP LOCKED`, [id]);
    if (!rows[0]) return undefined;
    await tx.write(`UPDATE ${table.sql} SET lease_owner = ?, lease_expires_at = ${nowPlusMs()} WHERE id = ?`, [holder, Math.round(holdMs), rows[0].id]);
    return toTaskRecord(rows[0]);
  });
}

interface ExpiredRow {
  id: string;
  name: string;
  queue: string;
  attempts: number | bigint;
  max_attempts: number | bigint;
  lease_owner: string | null;
}

/** The text recovery leaves in last_error, as PostgreSQL's dialect writes it. */
function expiredText(row: ExpiredRow): string {
  return `lease expired: worker ${row.lease_owner ?? "(unknown)"} stopped renewing it during attempt ${num(row.attempts)} of ${num(row.max_attempts)}`;
}

/**
 * Locks the tasks among `ids` that recovery may change (expired ones, or those `held` holds), skipping rows a worker
 * holds, and applies `change` to them, in one transaction. A held task's lease_owner is the holder's: its rows carry
 * the worker that lost the lease instead.
 */
function recover(
  db: CountingDb,
  table: MysqlTable,
  ids: readonly string[],
  held: HeldLease | undefined,
  change: (tx: CountingDb, rows: ExpiredRow[]) => Promise<RecoveredTask[]>,
) {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) return Promise.resolve([]);
  return atomically(db, async (tx) => {
    const rows = await tx.query<ExpiredRow>(
      `SELECT id, name, queue, attempts, max_attempts, lease_owner FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(unique.length)}) AND ${held ? "status = 'running' AND lease_owner = ?" : expired()}
       FOR UPDATE SKIP LOCKED`,
      held ? [...unique, held.holder] : unique,
    );
    const lost = held ? rows.map((row) => ({ ...row, lease_owner: held.formerOwner })) : rows;
    return lost.length === 0 ? [] : change(tx, lost);
  });
}

/**
 * "retry": tasks among `ids` (expired, or held by `held.holder`) go back to pending, due now, with their attempts kept (the lost run counted);
 * those that already used all their attempts go to dead instead.
 */
export function requeueExpired(db: CountingDb, table: MysqlTable, ids: readonly string[], held?: HeldLease): Promise<RecoveredTask[]> {
  return recover(db, table, ids, held, async (tx, rows) => {
    const changed = rows.map((row) => ({ row, dead: num(row.attempts) >= num(row.max_attempts), lastError: expiredText(row) }));
    const params: unknown[] = [];
    const status = caseById(
      changed.map(({ row, dead }) => ({ id: row.id, sql: dead ? "'dead'" : "'pending'" })),
      "status",
      params,
    );
    const finishedAt = caseById(
      changed.filter((c) => c.dead).map(({ row }) => ({ id: row.id, sql: NOW })),
      "NULL",
      params,
    );
    const lastError = caseById(
      changed.map(({ row, lastError }) => ({ id: row.id, sql: "?", values: [lastError] })),
      "last_error",
      params,
    );
    const errors = appendError(
      caseById(
        changed.map(({ row, lastError }) => ({ id: row.id, sql: "?", values: [lastError] })),
        "NULL",
        params,
      ),
    );
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
       SET status = ${status}, finished_at = ${finishedAt}, last_error = ${lastError}, errors = ${errors}, finished_by = NULL, run_at = ${NOW},
           lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = ${NOW}
       WHERE id IN (${placeholders(rows.length)})`,
      [...params, ...rows.map((row) => row.id)],
    );
    return changed.map(({ row, dead, lastError }) => recovered(row, dead ? "dead" : "pending", lastError));
  });
}

/**
 * "dead": tasks among `ids` (expired, or held by `held.holder`) are abandoned (dead, finished now) whatever attempts remain. `detail` is appended
 * to last_error (e.g. why a recovery function failed).
 */
export function abandonExpired(db: CountingDb, table: MysqlTable, ids: readonly string[], detail?: string, held?: HeldLease): Promise<RecoveredTask[]> {
  return recover(db, table, ids, held, async (tx, rows) => {
    const suffix = `; abandoned by the recovery policy${detail === undefined ? "" : `; ${detail}`}`;
    const changed = rows.map((row) => ({ row, lastError: expiredText(row) + suffix }));
    const params: unknown[] = [];
    const lastError = caseById(
      changed.map(({ row, lastError }) => ({ id: row.id, sql: "?", values: [lastError] })),
      "last_error",
      params,
    );
    const errors = appendError(
      caseById(
        changed.map(({ row, lastError }) => ({ id: row.id, sql: "?", values: [lastError] })),
        "NULL",
        params,
      ),
    );
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
       SET status = 'dead', finished_at = ${NOW}, last_error = ${lastError}, errors = ${errors}, finished_by = NULL, lease_owner = NULL, lease_expires_at = NULL,
           updated_at = ${NOW}
       WHERE id IN (${placeholders(rows.length)})`,
      [...params, ...rows.map((row) => row.id)],
    );
    return changed.map(({ row, lastError }) => recovered(row, "dead", lastError));
  });
}

function recovered(row: ExpiredRow, status: "pending" | "dead", lastError: string): RecoveredTask {
  return {
    id: row.id,
    name: row.name,
    queue: row.queue,
    status,
    attempts: num(row.attempts),
    maxAttempts: num(row.max_attempts),
    leaseOwner: row.lease_owner,
    lastError,
  };
}
