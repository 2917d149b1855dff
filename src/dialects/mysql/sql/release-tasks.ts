// SQL unit: give running tasks back to pending without counting the interrupted run (graceful shutdown).
// Guarded by the lease; published_at is cleared so the cleaner re-publishes any wake-up that gets lost.

import type { WakeupTarget } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, placeholders } from "./values.js";
import { runAttempts, sameRun } from "./run-fence.js";

/** Puts the tasks `owner` holds among `ids` (as the run of `attempts`, given) back to pending with attempts - 1; returns them with their queue. */
export async function releaseTasks(db: CountingDb, table: MysqlTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<WakeupTarget[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) return [];
  const runs = runAttempts(ids, attempts);
  return atomically(db, async (tx) => {
    const locked = await tx.query<WakeupTarget & { attempts: unknown }>(
      `SELECT id, queue, attempts FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(unique.length)}) AND lease_owner = ? AND status = 'running'
       FOR UPDATE`,
      [...unique, owner],
    );
    const held = sameRun(locked, runs);
    if (held.length === 0) return [];
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
       SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = ${NOW}
       WHERE id IN (${placeholders(held.length)})`,
      held.map((row) => row.id),
    );
    return held.map((row) => ({ id: row.id, queue: row.queue }));
  });
}
