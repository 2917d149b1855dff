// SQL units for what an operator does by hand (CLI and dashboard): retry, cancel, run a delayed task now.
// Each locks the rows it may change, changes exactly those, and returns them with their queue to publish wake-ups.

import type { WakeupTarget } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { wakeParent } from "./workflow-children.js";
import { NOW, placeholders } from "./values.js";

const REQUEUE = `status = 'pending', attempts = 0, run_at = ${NOW}, lease_owner = NULL, lease_expires_at = NULL,
  finished_at = NULL, published_at = NULL, updated_at = ${NOW}`;

/**
 * In one transaction: `select` (a locking read of id, queue, with `values`) finds the rows, `set` changes them by id.
 */
function lockAndSet(db: CountingDb, table: MysqlTable, select: string, values: readonly unknown[], set: string): Promise<WakeupTarget[]> {
  return atomically(db, async (tx) => {
    const rows = await tx.query<WakeupTarget>(select, values);
    if (rows.length === 0) return [];
    await tx.write(
      `UPDATE ${table.sql} SET ${set} WHERE id IN (${placeholders(rows.length)})`,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({ id: row.id, queue: row.queue }));
  });
}

/** Puts a dead or cancelled task back to pending with its attempts reset. Empty when the task is missing or not dead/cancelled. */
export function retryTask(db: CountingDb, table: MysqlTable, id: string): Promise<WakeupTarget[]> {
  return lockAndSet(db, table, `SELECT id, queue FROM ${table.sql} WHERE id = ? AND status IN ('dead', 'cancelled') FOR UPDATE`, [id], REQUEUE);
}

/** Puts every dead task (of `name`, when given) back to pending, at most `limit` per call (default 10000). */
export function retryDeadTasks(db: CountingDb, table: MysqlTable, options: { name?: string; limit?: number } = {}): Promise<WakeupTarget[]> {
  const byName = options.name === undefined ? "" : "AND name = ?";
  const values = options.name === undefined ? [] : [options.name];
  return lockAndSet(
    db,
    table,
    `SELECT id, queue FROM ${table.sql} WHERE status = 'dead' ${byName} ORDER BY finished_at LIMIT ? FOR UPDATE SKIP LOCKED`,
    [...values, Math.floor(options.limit ?? 10_000)],
    REQUEUE,
  );
}

/** Cancels a pending task so it never runs. Empty when the task is missing or not pending (a running task cannot be cancelled). */
export function cancelTask(db: CountingDb, table: MysqlTable, id: string): Promise<WakeupTarget[]> {
  const cancel = `status = 'cancelled', finished_at = ${NOW}, finished_by = NULL, updated_at = ${NOW}`;
  // The task first; then, generation by generation, its pending children and theirs (a running child's own children
  // stay its own). Each generation is locked before it is cancelled. Then its parent, when it waits for its children,
  // is made due to see the cancel.
  return atomically(db, async (tx) => {
    const top = await tx.query<WakeupTarget & { parent_id: string | null }>(
      `SELECT id, queue, parent_id FROM ${table.sql} WHERE id = ? AND status = 'pending' FOR UPDATE`,
      [id],
    );
    if (top.length === 0) return [];
    const cancelled: WakeupTarget[] = [...top];
    for (let generation: WakeupTarget[] = top; generation.length > 0;) {
      const ids = generation.map((row) => row.id);
      await tx.write(`UPDATE ${table.sql} SET ${cancel} WHERE id IN (${placeholders(ids.length)})`, ids);
      generation = await tx.query<WakeupTarget>(
        `SELECT id, queue FROM ${table.sql} WHERE parent_id IN (${placeholders(ids.length)}) AND status = 'pending' FOR UPDATE`,
        ids,
      );
      cancelled.push(...generation);
    }
    if (top[0]!.parent_id) await wakeParent(tx, table, top[0]!.parent_id);
    return cancelled.map((row) => ({ id: row.id, queue: row.queue }));
  });
}

/** Makes a delayed (or retry-waiting) pending task due now. Empty when the task is missing or not pending. */
export function runTaskNow(db: CountingDb, table: MysqlTable, id: string): Promise<WakeupTarget[]> {
  return lockAndSet(
    db,
    table,
    `SELECT id, queue FROM ${table.sql} WHERE id = ? AND status = 'pending' FOR UPDATE`,
    [id],
    `run_at = ${NOW}, published_at = NULL, updated_at = ${NOW}`,
  );
}
