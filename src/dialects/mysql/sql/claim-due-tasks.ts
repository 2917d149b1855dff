// SQL unit: claim up to `limit` due pending tasks without being told their ids (polling, and catch-up at start).
// Highest priority first, then oldest run_at; rows locked by another claimer are skipped.

import type { TaskRecord } from "../../../store/task-record.js";
import type { ClaimFilter } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { lockedColumns, markClaimed, type LockedRow } from "./claim-lock.js";
import { NOW, num, placeholders } from "./values.js";
import { HELD_BACK } from "./queue-controls.js";

/**
 * Claims at most `limit` due pending tasks the filter allows; returns the claimed rows. One locking read per queue,
 * each walking the index (status, queue, priority DESC, run_at) in its order and stopping after `limit` rows: over
 * several queues at once the order would need a sort, and a locking read that sorts locks every due row of those
 * queues first. The best `limit` of the rows read are claimed; the others stay pending and are unlocked at COMMIT.
 * (MariaDB before 10.8 ignores DESC in an index and sorts the one queue's due rows instead: still correct.)
 */
export async function claimDueTasks(db: CountingDb, table: MysqlTable, limit: number, filter: ClaimFilter): Promise<TaskRecord[]> {
  const take = Math.floor(limit);
  if (take <= 0 || filter.names.length === 0 || filter.queues.length === 0) return [];
  return atomically(db, async (tx) => {
    const read: LockedRow[] = [];
    for (const queue of new Set(filter.queues)) {
      const rows = await tx.query<LockedRow>(
        `SELECT ${lockedColumns("t")}
         FROM ${table.sql} t
         WHERE t.status = 'pending' AND t.queue = ? AND t.run_at <= ${NOW} AND t.name IN (${placeholders(filter.names.length)})
           AND NOT ${HELD_BACK("t", table, filter.counted)}
         ORDER BY t.priority DESC, t.run_at
         LIMIT ?
         FOR UPDATE SKIP LOCKED`,
        [Math.round(filter.leaseMs), queue, ...filter.names, take],
      );
      read.push(...rows);
    }
    read.sort((a, b) => num(b.priority) - num(a.priority) || (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : 0));
    return markClaimed(tx, table, read.slice(0, take), filter);
  });
}
