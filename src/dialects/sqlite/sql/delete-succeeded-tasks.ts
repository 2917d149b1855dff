// SQL unit: delete tasks that succeeded with nothing to keep (delete on success), many in one statement, instead of
// marking them succeeded. Guarded by the lease like the completion: a task whose lease this worker lost is left alone.

import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { runSteps, type Steps } from "../statement-steps.js";
import { runsById, SAME_RUN } from "./outcomes.js";
import { addDeletedTallies } from "./tallies.js";

/** Deletes the tasks among `ids` whose lease `owner` still holds; returns the ids it deleted. Tallies their arrivals in the same transaction. */
export async function deleteSucceededTasks(db: Db, table: SqliteTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return runSteps(db, deleteSteps(table, owner, ids, runsById(ids, attempts)));
}

function* deleteSteps(table: SqliteTable, owner: string, ids: readonly string[], runs: string): Steps<string[]> {
  const rows = (yield bind(
    `DELETE FROM ${table.sql}
     WHERE id IN (SELECT value FROM json_each({ids})) AND lease_owner = {owner} AND status = 'running' AND ${SAME_RUN}
     RETURNING id, queue, created_at`,
    { ids: JSON.stringify(ids), owner, runs },
  )) as Array<{ id: string; queue: string; created_at: string }>;
  yield* addDeletedTallies(
    table,
    owner,
    rows.map((row) => ({ queue: row.queue, createdAt: row.created_at })),
  );
  return rows.map((row) => row.id);
}
