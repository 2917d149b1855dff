// SQL unit: give running tasks back to pending without counting the interrupted run (graceful shutdown).
// Guarded by the lease; published_at is cleared so the cleaner re-publishes any wake-up that gets lost.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";

/** Puts the tasks `owner` holds among `ids` back to pending with attempts - 1; returns them with their queue. */
export function releaseTasks(db: Db, table: TaskTable, owner: string, ids: readonly string[]): Promise<Array<{ id: string; queue: string }>> {
  return db.query<{ id: string; queue: string }>(
    `UPDATE ${table.sql}
     SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
         published_at = NULL, updated_at = now()
     WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'running'
     RETURNING id::text AS id, queue`,
    [ids, owner],
  );
}
