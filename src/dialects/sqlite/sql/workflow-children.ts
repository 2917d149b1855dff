// SQL units of a workflow's children on SQLite: linking the tasks a start of children enqueued, reading them, the
// suspension of a parent that waits for them (which holds only if none finished since its run looked), and the wake
// of that parent when one ends. One writer at a time: the suspension's count and its write are one statement.

import type { Db } from "../../../store/db.js";
import { CHILDREN_WAIT, toChildState, type ChildRow, type ChildState, type ChildrenSuspension, type SuspendedTask } from "../../../store/steps.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import { bind } from "../bind.js";
import { NOW, nowPlus } from "../clock.js";
import type { SqliteTable } from "../table.js";
import { jsonList } from "./task-row.js";

export async function linkChildren(db: Db, table: SqliteTable, parentId: string, childIds: readonly string[]): Promise<number> {
  if (childIds.length === 0) return 0;
  const rows = await db.query(
    ...bind(`UPDATE ${table.sql} SET parent_id = {parent} WHERE id IN ${jsonList("{ids}")} AND parent_id IS NULL RETURNING id`, {
      parent: parentId,
      ids: JSON.stringify(childIds),
    }),
  );
  return rows.length;
}

export async function childStates(db: Db, table: SqliteTable, parentId: string): Promise<ChildState[]> {
  const rows = await db.query<ChildRow>(
    ...bind(`SELECT id, name, status, result, last_error AS lastError FROM ${table.sql} WHERE parent_id = {parent} ORDER BY created_at, id`, { parent: parentId }),
  );
  return rows.map(toChildState);
}

export async function suspendForChildren(db: Db, table: SqliteTable, owner: string, suspension: ChildrenSuspension): Promise<SuspendedTask | "changed" | undefined> {
  const { id, attempt, finished, recheckMs } = suspension;
  const held = { id, owner, attempt };
  const [row] = await db.query<{ queue: string }>(
    ...bind(
      `UPDATE ${table.sql}
       SET status = 'pending', attempts = MAX(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = ${NOW}, waiting_for = {wait}, run_at = ${nowPlus("{recheckMs}")}
       WHERE id = {id} AND lease_owner = {owner} AND attempts = {attempt} AND status = 'running'
         AND (SELECT count(*) FROM ${table.sql} c WHERE c.parent_id = {id} AND c.status IN ('succeeded', 'dead', 'cancelled')) = {finished}
       RETURNING queue`,
      { ...held, wait: CHILDREN_WAIT, recheckMs: Math.round(recheckMs), finished },
    ),
  );
  if (row) return { id, queue: row.queue, dueInMs: recheckMs };
  // Not written: the run lost the task, or a child finished since it looked.
  const still = await db.query(...bind(`SELECT 1 FROM ${table.sql} WHERE id = {id} AND lease_owner = {owner} AND attempts = {attempt} AND status = 'running'`, held));
  return still.length > 0 ? "changed" : undefined;
}

export async function wakeParent(db: Db, table: SqliteTable, parentId: string): Promise<WakeupTarget | undefined> {
  const [row] = await db.query<WakeupTarget>(...wakeParentStatement(table, parentId));
  return row;
}

/** The statement of wakeParent: the parent due now, unless it no longer waits for its children. */
export function wakeParentStatement(table: SqliteTable, parentId: string): [string, unknown[]] {
  return bind(
    `UPDATE ${table.sql} SET run_at = MIN(run_at, ${NOW}), waiting_for = NULL, published_at = NULL, updated_at = ${NOW}
     WHERE id = {id} AND status = 'pending' AND waiting_for = {wait}
     RETURNING id, queue`,
    { id: parentId, wait: CHILDREN_WAIT },
  );
}
