// SQL unit: an event sent to a task inside the app's transaction. The task's row is locked first (whatever its
// status), so a workflow suspending at the same time either sees the event or is woken by it; a task that waits for
// this event becomes due now, and with a NOTIFY channel its wake-up leaves with the commit.

import type { Db } from "../../../store/db.js";
import type { SentEvent } from "../../../store/steps.js";
import type { PgTable } from "../table.js";
import { notifyWakeups } from "./notify-wakeups.js";

export async function sendEvent(db: Db, table: PgTable, taskId: string, name: string, payloadJson: string, notifyChannel?: string): Promise<SentEvent> {
  const [task] = await db.query<{ queue: string; status: string; wakes: boolean }>(
    `SELECT queue, status, (status = 'pending' AND waiting_for IS NOT DISTINCT FROM $2) AS wakes FROM ${table.sql} WHERE id = $1::uuid FOR UPDATE`,
    [taskId, name],
  );
  if (!task || (task.status !== "pending" && task.status !== "running")) return { accepted: false };
  await db.query(`INSERT INTO ${table.events} (task_id, name, payload, sent_at) VALUES ($1::uuid, $2, $3, clock_timestamp())`, [taskId, name, payloadJson]);
  if (!task.wakes) return { accepted: true };
  await db.query(`UPDATE ${table.sql} SET run_at = LEAST(run_at, now()), waiting_for = NULL, updated_at = now() WHERE id = $1::uuid`, [taskId]);
  if (notifyChannel !== undefined) await notifyWakeups(db, notifyChannel, task.queue, [taskId]);
  return { accepted: true, woken: { id: taskId, queue: task.queue } };
}
