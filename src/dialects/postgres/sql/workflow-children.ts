// SQL units of a workflow's children on PostgreSQL: linking the tasks a start of children enqueued, reading them, the
// suspension of a parent that waits for them (which holds only if none finished since its run looked), and the wake
// of that parent when one ends.

import { atomically, type Db } from "../../../store/db.js";
import { CHILDREN_WAIT, toChildState, type ChildRow, type ChildState, type ChildrenSuspension, type SuspendedTask } from "../../../store/steps.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import type { PgTable } from "../table.js";

const FINISHED = `status IN ('succeeded', 'dead', 'cancelled')`;

/** What makes a parent that waits for its children due now (run by wakeParent, and by cancelTask for a cancelled child). */
export const WAKE_PARENT_SET = `run_at = LEAST(run_at, now()), waiting_for = NULL, published_at = NULL, updated_at = now()`;

export async function linkChildren(db: Db, table: PgTable, parentId: string, childIds: readonly string[]): Promise<number> {
  if (childIds.length === 0) return 0;
  const rows = await db.query(`UPDATE ${table.sql} SET parent_id = $1::uuid WHERE id = ANY($2::uuid[]) AND parent_id IS NULL RETURNING id`, [parentId, childIds]);
  return rows.length;
}

export async function childStates(db: Db, table: PgTable, parentId: string): Promise<ChildState[]> {
  const rows = await db.query<ChildRow>(
    `SELECT id::text AS id, name, status, result::text AS result, last_error AS "lastError"
     FROM ${table.sql} WHERE parent_id = $1::uuid AND parent_id IS NOT NULL ORDER BY created_at, id`,
    [parentId],
  );
  return rows.map(toChildState);
}

export function suspendForChildren(db: Db, table: PgTable, owner: string, suspension: ChildrenSuspension): Promise<SuspendedTask | "changed" | undefined> {
  const { id, attempt, finished, recheckMs } = suspension;
  return atomically(db, async (tx) => {
    // The row's lock first: a child's end that committed before the count is counted; one after waits for this commit
    // in wakeParent and then finds the parent waiting.
    const held = await tx.query(`SELECT 1 FROM ${table.sql} WHERE id = $1::uuid AND lease_owner = $2 AND attempts = $3 AND status = 'running' FOR UPDATE`, [
      id,
      owner,
      attempt,
    ]);
    if (held.length === 0) return undefined;
    const [count] = await tx.query<{ finished: number }>(
      `SELECT count(*)::int AS finished FROM ${table.sql} WHERE parent_id = $1::uuid AND parent_id IS NOT NULL AND ${FINISHED}`,
      [id],
    );
    if (Number(count!.finished) !== finished) return "changed";
    const [row] = await tx.query<{ queue: string }>(
      `UPDATE ${table.sql}
       SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = now(), waiting_for = $2, run_at = clock_timestamp() + $3::float8 * interval '1 millisecond'
       WHERE id = $1::uuid
       RETURNING queue`,
      [id, CHILDREN_WAIT, recheckMs],
    );
    return row ? { id, queue: row.queue, dueInMs: recheckMs } : undefined;
  });
}

export async function wakeParent(db: Db, table: PgTable, parentId: string): Promise<WakeupTarget | undefined> {
  const [row] = await db.query<WakeupTarget>(
    `UPDATE ${table.sql} SET ${WAKE_PARENT_SET}
     WHERE id = $1::uuid AND status = 'pending' AND waiting_for = $2
     RETURNING id::text AS id, queue`,
    [parentId, CHILDREN_WAIT],
  );
  return row;
}
