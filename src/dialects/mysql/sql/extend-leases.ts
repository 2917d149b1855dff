// SQL unit: the heartbeat. Extends the leases a worker holds, a batch per transaction, and tells which ones it lost.
// Rows locked right now (the task's own completing transaction, a cleaner mid-update) are skipped, not waited for.

import type { LeaseState } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, nowPlusMs, placeholders } from "./values.js";
import { runAttempts, sameRun } from "./run-fence.js";

/** Sets lease_expires_at = now + leaseMs on the running tasks among `ids` that `owner` still holds. */
export async function extendLeases(
  db: CountingDb,
  table: MysqlTable,
  owner: string,
  ids: readonly string[],
  leaseMs: number,
  attempts?: readonly number[],
): Promise<LeaseState[]> {
  const unique = [...new Map(ids.map((id) => [id.toLowerCase(), id])).values()];
  if (unique.length === 0) return [];
  const runs = runAttempts(ids, attempts);
  return atomically(db, async (tx) => {
    const locked = await tx.query<{ id: string; attempts: unknown }>(
      `SELECT id, attempts FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(unique.length)}) AND lease_owner = ? AND status = 'running'
       FOR UPDATE SKIP LOCKED`,
      [...unique, owner],
    );
    const held = sameRun(locked, runs);
    const extended = new Set(held.map((row) => row.id.toLowerCase()));
    if (held.length > 0) {
      await tx.write(
        `UPDATE ${table.sql} FORCE INDEX (PRIMARY) SET lease_expires_at = ${nowPlusMs()}, updated_at = ${NOW}
         WHERE id IN (${placeholders(held.length)})`,
        [Math.round(leaseMs), ...held.map((row) => row.id)],
      );
    }
    // Held but another run of the task: lost to this one.
    const otherRuns = new Set(locked.filter((row) => !extended.has(row.id.toLowerCase())).map((row) => row.id.toLowerCase()));
    const rest = unique.filter((id) => !extended.has(id.toLowerCase()) && !otherRuns.has(id.toLowerCase()));
    const stillOurs = new Set<string>();
    if (rest.length > 0) {
      // Skipped: locked by another transaction. Still ours and running (try again next beat), or lost?
      const seen = await tx.query<{ id: string; attempts: unknown }>(
        `SELECT id, attempts FROM ${table.sql} WHERE id IN (${placeholders(rest.length)}) AND lease_owner = ? AND status = 'running'`,
        [...rest, owner],
      );
      for (const row of sameRun(seen, runs)) stillOurs.add(row.id.toLowerCase());
    }
    return unique.map((id) => {
      const key = id.toLowerCase();
      return { id, extended: extended.has(key), lost: !extended.has(key) && !stillOurs.has(key) };
    });
  });
}
