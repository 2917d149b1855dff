// SQL unit: delete tasks that succeeded with nothing to keep (delete on success), many in one statement, instead of
// marking them succeeded. Guarded by the lease like the completion: a task whose lease this worker lost is left alone.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/**
 * Deletes the tasks among `ids` whose lease `owner` still holds; returns the ids it deleted. By primary key, for the
 * same reason as the completion (`lease_owner = $2` already implies running).
 */
export async function deleteSucceededTasks(db: Db, table: PgTable, owner: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const one = ids.length === 1;
  const rows = await db.query<{ id: string }>(
    `DELETE FROM ${table.sql} WHERE ${one ? "id = $1::uuid" : "id = ANY($1::uuid[])"} AND lease_owner = $2 RETURNING id::text AS id`,
    [one ? ids[0] : ids, owner],
    `ptq_delete_succeeded${one ? "_one" : ""}`,
  );
  return rows.map((row) => row.id);
}
