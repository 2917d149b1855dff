// SQL unit: give running tasks back to pending without counting the interrupted run (graceful shutdown).
// Guarded by the lease; published_at is cleared so the cleaner re-publishes any wake-up that gets lost.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { WakeupTarget } from "../../../store/task-writes.js";

/** Puts the tasks `owner` holds among `ids` back to pending with attempts - 1; returns them with their queue. */
export function releaseTasks(db: Db, table: PgTable, owner: string, ids: readonly string[]): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `UPDATE ${table.sql}
     SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
         published_at = NULL, updated_at = now()
     WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'running'
     RETURNING id::text AS id, queue`,
    [ids, owner],
  );
}
