// SQL unit: mark tasks succeeded with their results, many in one statement.
// Guarded by the lease: a task whose lease this worker lost is left alone (and not reported back). The times are the
// database's clock_timestamp(), not now(): inside a transactional handler's transaction now() is when it began.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";

/** One success to record. `resultJson` is already-serialised JSON ("null" for no result). */
export interface Completion {
  id: string;
  resultJson: string;
}

/** Marks the tasks succeeded where `owner` still holds the lease; returns the ids it marked. */
export async function completeTasks(db: Db, table: TaskTable, owner: string, completions: readonly Completion[]): Promise<string[]> {
  const param = `[${completions.map((c) => `{"id":"${c.id}","result":${c.resultJson}}`).join(",")}]`;
  const rows = await db.query<{ id: string }>(
    `UPDATE ${table.sql} t
     SET status = 'succeeded', result = r.result, finished_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL,
         updated_at = clock_timestamp()
     FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, result jsonb)
     WHERE t.id = r.id AND t.lease_owner = $2 AND t.status = 'running'
     RETURNING t.id::text AS id`,
    [param, owner],
  );
  return rows.map((row) => row.id);
}
