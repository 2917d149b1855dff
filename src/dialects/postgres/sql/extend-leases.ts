// SQL unit: the heartbeat. Extends the leases a worker holds, in one statement, and tells which ones it lost.
// Rows locked right now (the task's own completing transaction, a cleaner mid-update) are skipped, not waited for.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { LeaseState } from "../../../store/task-writes.js";

/** Sets lease_expires_at = now() + leaseMs on the running tasks among `ids` that `owner` still holds (as the run of `attempts`, given). */
export function extendLeases(db: Db, table: PgTable, owner: string, ids: readonly string[], leaseMs: number, attempts?: readonly number[]): Promise<LeaseState[]> {
  const t = table.sql;
  return db.query<LeaseState>(
    `WITH input AS (
       SELECT DISTINCT ON (id) id, attempt FROM unnest($1::uuid[], $4::int[]) AS x(id, attempt)
     ), target AS (
       SELECT t.id FROM ${t} t JOIN input ON input.id = t.id
       WHERE t.lease_owner = $2 AND t.status = 'running' AND t.attempts = COALESCE(input.attempt, t.attempts)
       FOR UPDATE OF t SKIP LOCKED
     ), extended AS (
       UPDATE ${t} t SET lease_expires_at = now() + $3::int * interval '1 millisecond', updated_at = now()
       FROM target WHERE t.id = target.id
       RETURNING t.id
     )
     SELECT input.id::text AS id, extended.id IS NOT NULL AS extended,
            (extended.id IS NULL AND (seen.id IS NULL OR seen.lease_owner IS DISTINCT FROM $2 OR seen.status <> 'running'
                                      OR seen.attempts <> COALESCE(input.attempt, seen.attempts))) AS lost
     FROM input
     LEFT JOIN extended ON extended.id = input.id
     LEFT JOIN ${t} seen ON seen.id = input.id`,
    [ids, owner, Math.round(leaseMs), ids.map((_, i) => attempts?.[i] ?? null)],
    "ptq_extend_run_leases",
  );
}
