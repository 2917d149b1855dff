// SQL units of a workflow's children on MySQL/MariaDB: linking the tasks a start of children enqueued, reading them,
// the suspension of a parent that waits for them (which holds only if none finished since its run looked), and the
// wake of that parent when one ends. Both writes to the parent lock its row first; the suspension then counts its
// children with a locking read, which sees what committed by now rather than the transaction's snapshot.

import { atomically, type CountingDb } from "../../../store/db.js";
import { CHILDREN_WAIT, toChildState, type ChildRow, type ChildState, type ChildrenSuspension, type SuspendedTask } from "../../../store/steps.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import type { MysqlTable } from "../table.js";
import { flag, jsonText, NOW, nowPlusMs, num, placeholders } from "./values.js";

export async function linkChildren(db: CountingDb, table: MysqlTable, parentId: string, childIds: readonly string[]): Promise<number> {
  if (childIds.length === 0) return 0;
  return db.write(`UPDATE ${table.sql} SET parent_id = ? WHERE id IN (${placeholders(childIds.length)}) AND parent_id IS NULL`, [
    parentId.toLowerCase(),
    ...childIds.map((id) => id.toLowerCase()),
  ]);
}

export async function childStates(db: CountingDb, table: MysqlTable, parentId: string): Promise<ChildState[]> {
  const rows = await db.query<ChildRow>(
    `SELECT id, name, status, ${jsonText("result")} AS result, last_error AS lastError FROM ${table.sql} WHERE parent_id = ? ORDER BY created_at, id`,
    [parentId.toLowerCase()],
  );
  return rows.map(toChildState);
}

export function suspendForChildren(db: CountingDb, table: MysqlTable, owner: string, suspension: ChildrenSuspension): Promise<SuspendedTask | "changed" | undefined> {
  const { attempt, finished, recheckMs } = suspension;
  const id = suspension.id.toLowerCase();
  return atomically(db, async (tx) => {
    const [held] = await tx.query<{ queue: string }>(
      `SELECT queue FROM ${table.sql} WHERE id = ? AND lease_owner = ? AND attempts = ? AND status = 'running' FOR UPDATE`,
      [id, owner, attempt],
    );
    if (!held) return undefined;
    const [count] = await tx.query<{ finished: unknown }>(
      `SELECT count(*) AS finished FROM ${table.sql} WHERE parent_id = ? AND status IN ('succeeded', 'dead', 'cancelled') LOCK IN SHARE MODE`,
      [id],
    );
    if (num(count!.finished) !== finished) return "changed";
    await tx.write(
      `UPDATE ${table.sql}
       SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = ${NOW}, waiting_for = ?, run_at = ${nowPlusMs()}
       WHERE id = ?`,
      [CHILDREN_WAIT, Math.round(recheckMs), id],
    );
    return { id: suspension.id, queue: held.queue, dueInMs: recheckMs };
  });
}

export function wakeParent(db: CountingDb, table: MysqlTable, parentId: string): Promise<WakeupTarget | undefined> {
  const id = parentId.toLowerCase();
  return atomically(db, async (tx) => {
    const [task] = await tx.query<{ queue: string; wakes: unknown }>(
      `SELECT queue, (status = 'pending' AND waiting_for <=> ?) AS wakes FROM ${table.sql} WHERE id = ? FOR UPDATE`,
      [CHILDREN_WAIT, id],
    );
    if (!task || !flag(task.wakes)) return undefined;
    await tx.write(`UPDATE ${table.sql} SET run_at = LEAST(run_at, ${NOW}), waiting_for = NULL, published_at = NULL, updated_at = ${NOW} WHERE id = ?`, [id]);
    return { id: parentId, queue: task.queue };
  });
}
