// SQL unit: give running tasks back to pending without counting the interrupted run (graceful shutdown).
// Guarded by the lease; published_at is cleared so the cleaner re-publishes any wake-up that gets lost.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { WakeupTarget } from "../../../store/task-writes.js";

/** Puts the tasks `owner` holds among `ids` (as the run of `attempts`, given) back to pending with attempts - 1; returns them with their queue. */
export function releaseTasks(db: Db, table: PgTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    `UPDATE ${table.sql} t
     SET status = 'pending', attempts = GREATEST(t.attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
         published_at = NULL, updated_at = now()
     FROM (SELECT DISTINCT ON (id) id, attempt FROM unnest($1::uuid[], $3::int[]) AS x(id, attempt)) AS r
     WHERE t.id = r.id AND t.attempts = COALESCE(r.attempt, t.attempts) AND t.lease_owner = $2 AND t.status = 'running'
     RETURNING t.id::text AS id, t.queue`,
    [ids, owner, ids.map((_, i) => attempts?.[i] ?? null)],
  );
}
