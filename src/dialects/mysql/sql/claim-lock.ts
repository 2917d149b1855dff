// The shared second half of both claims: once the claim transaction holds the rows (SELECT … FOR UPDATE SKIP LOCKED,
// which also read them and the lease's end by the database clock), one UPDATE by primary key marks them running.
// MySQL has no UPDATE … RETURNING; the claimed records are built from the locked rows and the values written.

import type { TaskRecord } from "../../../store/task-record.js";
import type { ClaimFilter } from "../../../store/task-writes.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { taskColumns, toTaskRecord, type TaskRow } from "./task-row.js";
import { fromTimeText, NOW, nowPlusMs, placeholders, timeText } from "./values.js";

/** A row of a claim's locking read: the task, and the claim's clock (now, and now + lease) as text. */
export type LockedRow = TaskRow & { claim_now: string; lease_until: string };

/** Select list of a claim's locking read; its one placeholder is the lease in ms. */
export function lockedColumns(alias: string): string {
  return `${taskColumns(alias)}, ${timeText(NOW)} AS claim_now, ${timeText(nowPlusMs())} AS lease_until`;
}

/**
 * Marks `rows` (locked by the caller's transaction) running for `filter.owner`, with the lease end and update time the
 * locking read computed, and returns them as claimed. FORCE INDEX (PRIMARY): with ids covering much of a small table the
 * optimizer may otherwise pick a scan, which locks rows it does not change.
 */
export async function markClaimed(tx: CountingDb, table: MysqlTable, rows: readonly LockedRow[], filter: ClaimFilter): Promise<TaskRecord[]> {
  if (rows.length === 0) return [];
  // One claim's clock for all its rows (each locking read computed its own; they differ by the reads' duration).
  const { claim_now: now, lease_until: until } = rows[0]!;
  await tx.write(
    `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
     SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?, updated_at = ?
     WHERE id IN (${placeholders(rows.length)})`,
    [filter.owner, until, now, ...rows.map((row) => row.id)],
  );
  const leaseExpiresAt = fromTimeText(until);
  const updatedAt = fromTimeText(now);
  return rows.map((row) => {
    const record = toTaskRecord(row);
    return { ...record, status: "running", attempts: record.attempts + 1, leaseOwner: filter.owner, leaseExpiresAt, updatedAt };
  });
}
