// SQL unit: delete tasks that succeeded with nothing to keep (delete on success), a batch per transaction, instead of
// marking them succeeded. Guarded by the lease like the completion: a task whose lease this worker lost is left alone.
// The same transaction tallies them as arrived in the slot of their created_at (./tallies.ts): gone, they are no longer
// counted from the table.

import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { placeholders } from "./values.js";
import { addDeletedTallies, CREATED_SLOT_COLUMNS } from "./tallies.js";
import { runAttempts, sameRun } from "./run-fence.js";

/**
 * Deletes the tasks among `ids` whose lease `owner` still holds; returns the ids it deleted. The locking read by
 * primary key says which rows the lease guard lets through and holds them, so the DELETE removes exactly those.
 */
export async function deleteSucceededTasks(db: CountingDb, table: MysqlTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<string[]> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  const runs = runAttempts(ids, attempts);
  return atomically(db, async (tx) => {
    const locked = await tx.query<{ id: string; queue: string; attempts: unknown; created_slot: unknown; recent: unknown }>(
      `SELECT id, queue, attempts, ${CREATED_SLOT_COLUMNS} FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(wanted.length)}) AND lease_owner = ? FOR UPDATE`,
      [...wanted, owner],
    );
    const held = sameRun(locked, runs);
    if (held.length === 0) return [];
    await tx.write(`DELETE FROM ${table.sql} WHERE id IN (${placeholders(held.length)}) AND lease_owner = ?`, [...held.map((row) => row.id), owner]);
    await addDeletedTallies(tx, table, owner, held);
    return held.map((row) => row.id);
  });
}
