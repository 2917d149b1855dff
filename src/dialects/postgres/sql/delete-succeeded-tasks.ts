// SQL unit: delete tasks that succeeded with nothing to keep (delete on success), many in one statement, instead of
// marking them succeeded. Guarded by the lease like the completion: a task whose lease this worker lost is left alone.
// The same statement tallies them as arrived in the slot of their created_at (./tallies.ts): gone, they are no longer
// counted from the table.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import { tallyCtes } from "./tallies.js";

/**
 * Deletes the tasks among `ids` whose lease `owner` still holds; returns the ids it deleted. By primary key, for the
 * same reason as the completion (`lease_owner = $2` already implies running).
 */
export async function deleteSucceededTasks(db: Db, table: PgTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const one = ids.length === 1;
  // Each id's run (its attempt) fences the deletion: a row that is another run of the task is left alone.
  const runs = one ? (attempts?.[0] ?? null) : ids.map((_, i) => attempts?.[i] ?? null);
  const rows = await db.query<{ id: string }>(
    `WITH done AS (
       DELETE FROM ${table.sql} t
       ${one ? "WHERE t.id = $1::uuid AND t.attempts = COALESCE($3::int, t.attempts)" : "USING unnest($1::uuid[], $3::int[]) AS r(id, attempt) WHERE t.id = r.id AND t.attempts = COALESCE(r.attempt, t.attempts)"}
         AND t.lease_owner = $2
       RETURNING t.id, t.queue, t.created_at),
     ${tallyCtes(table, { writer: "$2", deleted: true })}
     SELECT id::text AS id FROM done`,
    [one ? ids[0] : ids, owner, runs],
    `ptq_delete_succeeded_run${one ? "_one" : ""}`,
  );
  return rows.map((row) => row.id);
}
