// SQL units for what an operator does by hand (CLI and dashboard): retry, cancel, run a delayed task now, and prune.
// Each action returns the tasks it changed with their queue, so the caller can publish their wake-ups.

import { runSteps, type Steps } from "../statement-steps.js";
import { deleteWorkflowRows } from "./workflow-steps.js";
import { addDeletedTallies, pruneTallies } from "./tallies.js";
import type { WakeupTarget } from "../../../store/task-writes.js";
import { NOW, nowPlus } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { wakeParentStatement } from "./workflow-children.js";

const REQUEUE = `status = 'pending', attempts = 0, run_at = ${NOW}, lease_owner = NULL, lease_expires_at = NULL,
  finished_at = NULL, published_at = NULL, updated_at = ${NOW}`;

export function retryTask(db: Db, table: SqliteTable, id: string): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(...bind(`UPDATE ${table.sql} SET ${REQUEUE} WHERE id = {id} AND status IN ('dead', 'cancelled') RETURNING id, queue`, { id }));
}

export function retryDeadTasks(db: Db, table: SqliteTable, options: { name?: string; limit: number }): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    ...bind(
      `UPDATE ${table.sql} SET ${REQUEUE}
       WHERE id IN (SELECT id FROM ${table.sql} WHERE status = 'dead' AND ({name} IS NULL OR name = {name}) ORDER BY finished_at LIMIT {limit})
       RETURNING id, queue`,
      { name: options.name ?? null, limit: options.limit },
    ),
  );
}

export function cancelTask(db: Db, table: SqliteTable, id: string): Promise<WakeupTarget[]> {
  return runSteps(db, cancelSteps(table, id));
}

/**
 * The task first; then, from it, its pending children and theirs (a running child's own children stay its own); then
 * its parent, when it waits for its children, is made due to see the cancel.
 */
function* cancelSteps(table: SqliteTable, id: string): Steps<WakeupTarget[]> {
  const cancel = `status = 'cancelled', finished_at = ${NOW}, finished_by = NULL, updated_at = ${NOW}`;
  const [top] = (yield bind(`UPDATE ${table.sql} SET ${cancel} WHERE id = {id} AND status = 'pending' RETURNING id, queue, parent_id`, { id })) as Array<
    WakeupTarget & { parent_id: string | null }
  >;
  if (!top) return [];
  const children = (yield bind(
    `UPDATE ${table.sql} SET ${cancel}
     WHERE status = 'pending' AND id IN (
       WITH RECURSIVE family(id) AS (
         SELECT {id}
         UNION
         SELECT c.id FROM ${table.sql} c JOIN family f ON c.parent_id = f.id WHERE c.status = 'pending'
       )
       SELECT id FROM family WHERE id <> {id})
     RETURNING id, queue`,
    { id },
  )) as WakeupTarget[];
  if (top.parent_id) yield wakeParentStatement(table, top.parent_id);
  return [{ id: top.id, queue: top.queue }, ...children];
}

export function runTaskNow(db: Db, table: SqliteTable, id: string): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    ...bind(`UPDATE ${table.sql} SET run_at = ${NOW}, published_at = NULL, updated_at = ${NOW} WHERE id = {id} AND status = 'pending' RETURNING id, queue`, { id }),
  );
}

/**
 * Deletes at most `limit` tasks that finished more than retentionMs ago, oldest first, with their steps and events,
 * except children of a workflow still under way (its wait may read them); returns their ids.
 */
export async function pruneTasks(db: Db, table: SqliteTable, options: { retentionMs: number; limit: number }): Promise<string[]> {
  return runSteps(db, pruneSteps(table, options));
}

function* pruneSteps(table: SqliteTable, options: { retentionMs: number; limit: number }): Steps<string[]> {
  const rows = (yield bind(
    `DELETE FROM ${table.sql} WHERE id IN (
       SELECT id FROM ${table.sql} c
       WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at < ${nowPlus("-{retentionMs}")}
         AND NOT (c.parent_id IS NOT NULL AND COALESCE((SELECT p.status FROM ${table.sql} p WHERE p.id = c.parent_id), 'gone') IN ('pending', 'running'))
       ORDER BY finished_at LIMIT {limit})
     RETURNING id, queue, created_at`,
    options,
  )) as Array<{ id: string; queue: string; created_at: string }>;
  yield* addDeletedTallies(
    table,
    "prune",
    rows.map((row) => ({ queue: row.queue, createdAt: row.created_at })),
  );
  yield pruneTallies(table);
  if (rows.length > 0)
    yield* deleteWorkflowRows(
      table,
      rows.map((row) => row.id),
    );
  return rows.map((row) => row.id);
}
