// SQL unit: delete tasks that succeeded with nothing to keep (delete on success), many in one statement, instead of
// marking them succeeded. Guarded by the lease like the completion: a task whose lease this worker lost is left alone.

import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";

/** Deletes the tasks among `ids` whose lease `owner` still holds; returns the ids it deleted. */
export async function deleteSucceededTasks(db: Db, table: SqliteTable, owner: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    ...bind(
      `DELETE FROM ${table.sql}
       WHERE id IN (SELECT value FROM json_each({ids})) AND lease_owner = {owner} AND status = 'running'
       RETURNING id`,
      { ids: JSON.stringify(ids), owner },
    ),
  );
  return rows.map((row) => row.id);
}
