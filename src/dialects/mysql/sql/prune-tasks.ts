// SQL unit: delete one bounded batch of finished tasks (succeeded, dead, cancelled) older than the retention window.
// One short transaction per batch, so pruning a huge table never holds a huge transaction. The same transaction tallies
// the deleted tasks enqueued within the tallies' span as arrived, deletes the tally rows past that span, and deletes the
// deleted tasks' workflow steps and events.

import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { addDeletedTallies, CREATED_SLOT_COLUMNS, pruneTallies } from "./tallies.js";
import { nowMinusMs, placeholders } from "./values.js";
import { deleteWorkflowRows } from "./workflow-steps.js";

/**
 * Deletes at most `limit` tasks that finished more than `retentionMs` ago, oldest first, except children of a workflow
 * still under way (its wait may read them); returns their ids. Reads the finished_at index in order (only finished
 * tasks have one), locking what it takes and skipping rows others hold.
 */
export async function pruneTasks(db: CountingDb, table: MysqlTable, options: { retentionMs: number; limit: number }): Promise<string[]> {
  return atomically(db, async (tx) => {
    await pruneTallies(tx, table);
    const rows = await tx.query<{ id: string; queue: string; created_slot: unknown; recent: unknown }>(
      `SELECT id, queue, ${CREATED_SLOT_COLUMNS} FROM ${table.sql} c
       WHERE finished_at < ${nowMinusMs()} AND status IN ('succeeded', 'dead', 'cancelled')
         AND NOT (c.parent_id IS NOT NULL AND COALESCE((SELECT p.status FROM ${table.sql} p WHERE p.id = c.parent_id), 'gone') IN ('pending', 'running'))
       ORDER BY finished_at
       LIMIT ?
       FOR UPDATE SKIP LOCKED`,
      [Math.round(options.retentionMs), Math.floor(options.limit)],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    await tx.write(`DELETE FROM ${table.sql} WHERE id IN (${placeholders(ids.length)})`, ids);
    await addDeletedTallies(tx, table, "prune", rows);
    await deleteWorkflowRows(tx, table, ids);
    return ids;
  });
}
