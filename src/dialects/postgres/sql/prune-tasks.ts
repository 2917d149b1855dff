// SQL unit: delete one bounded batch of finished tasks (succeeded, dead, cancelled) older than the retention window.
// One short statement per batch, so pruning a huge table never holds a huge transaction. The same statement tallies the
// deleted tasks enqueued within the tallies' span as arrived, and deletes the tally rows past that span, and the deleted
// tasks' workflow steps and events.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import { TALLY_KEEP_SECONDS } from "../../../store/tallies.js";
import { slotOf, tallyCtes } from "./tallies.js";

/** A finished child whose parent has not finished: kept, so that the parent's wait can still read its outcome. */
const PARENT_WAITS = (alias: string, tasks: string) =>
  `(${alias}.parent_id IS NOT NULL AND COALESCE((SELECT p.status FROM ${tasks} p WHERE p.id = ${alias}.parent_id), 'gone') IN ('pending', 'running'))`;

/**
 * Deletes at most `limit` tasks that finished more than `retentionMs` ago, oldest first, except children of a workflow
 * still under way. Returns their ids.
 */
export async function pruneTasks(db: Db, table: PgTable, options: { retentionMs: number; limit: number }): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `WITH done AS (
       DELETE FROM ${table.sql} WHERE id IN (
         SELECT id FROM ${table.sql} c
         WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at < now() - $1 * interval '1 millisecond'
           AND NOT ${PARENT_WAITS("c", table.sql)}
         ORDER BY finished_at
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
       RETURNING id, queue, created_at, finished_at),
     gone_steps AS (DELETE FROM ${table.steps} WHERE task_id IN (SELECT id FROM done)),
     gone_events AS (DELETE FROM ${table.events} WHERE task_id IN (SELECT id FROM done)),
     ${tallyCtes(table, { writer: "'prune'", deleted: true })},
     old_tallies AS (
       DELETE FROM ${table.tallies} WHERE slot < ${slotOf("now()")} - ${TALLY_KEEP_SECONDS})
     SELECT id::text AS id FROM done ORDER BY finished_at, id`,
    [options.retentionMs, options.limit],
  );
  return rows.map((row) => row.id);
}
