// SQL units of durable workflows on MySQL/MariaDB: a task's recorded steps, the record of one step (guarded by the
// run), a wait's receipt of an event, the suspension of a sleeping or waiting run, an event sent in the app's
// transaction, and the deletion of pruned tasks' steps and events. Without UPDATE … RETURNING, each write that must say
// what it changed locks its rows first; the suspension and the send both lock the task's row before they read or write
// an event, so the two never deadlock and one of them always sees the other.

import { atomically, type CountingDb } from "../../../store/db.js";
import type { EventReceipt, NewStep, RecordedStep, SentEvent, StepRecord, StepRow, Suspension, SuspendedTask } from "../../../store/steps.js";
import { FOREVER, toStepRecord } from "../../../store/steps.js";
import type { MysqlTable } from "../table.js";
import { flag, fromNullableTimeText, NOW, nowPlusMs, num, placeholders, timeText, toTimeText } from "./values.js";

/** Milliseconds from the database's now to the DATETIME `expression` (negative when passed). */
const msUntil = (expression: string) => `TIMESTAMPDIFF(MICROSECOND, ${NOW}, ${expression}) / 1000`;

/** The run holds the task `t`: parameters id, owner, attempt. */
const HELD = `t.id = ? AND t.lease_owner = ? AND t.attempts = ? AND t.status = 'running'`;

/** The run_at of a wait without a deadline, as DATETIME text. */
const FOREVER_TEXT = toTimeText(FOREVER);

const untilMs = (value: unknown) => (value === null || value === undefined ? null : Math.max(0, num(value)));

export async function loadSteps(db: CountingDb, table: MysqlTable, taskId: string): Promise<StepRecord[]> {
  const rows = await db.query<StepRow>(
    `SELECT seq, name, kind, attempt, state, result, ${timeText("until")} AS until, ${timeText("created_at")} AS createdAt,
            ${timeText("finished_at")} AS finishedAt
     FROM ${table.steps} WHERE task_id = ? ORDER BY seq`,
    [taskId.toLowerCase()],
  );
  return rows.map((row) => toStepRecord(row, (value) => fromNullableTimeText(value as string | null)));
}

export async function recordStep(db: CountingDb, table: MysqlTable, owner: string, step: NewStep): Promise<RecordedStep> {
  const id = step.taskId.toLowerCase();
  const inMs = step.until && "inMs" in step.until ? Math.round(step.until.inMs) : null;
  const at = step.until && "at" in step.until ? toTimeText(step.until.at) : null;
  const waits = step.kind === "wait";
  // IGNORE skips only the duplicate seq here: every other value was checked before (names, kinds, JSON text).
  const written = await db.write(
    `INSERT IGNORE INTO ${table.steps} (task_id, seq, name, kind, attempt, state, result, until, created_at, finished_at)
     SELECT t.id, ?, ?, ?, ?, ?, ?, COALESCE(${nowPlusMs()}, ?), ${NOW}, ${waits ? "NULL" : NOW}
     FROM ${table.sql} t WHERE ${HELD}`,
    [step.seq, step.name, step.kind, step.attempt, waits ? "waiting" : "done", step.resultJson, inMs, at, id, owner, step.attempt],
  );
  if (written === 0) return { written: false };
  if (inMs === null && at === null) return { written: true };
  const [row] = await db.query<{ untilInMs: unknown }>(`SELECT ${msUntil("until")} AS untilInMs FROM ${table.steps} WHERE task_id = ? AND seq = ?`, [id, step.seq]);
  const left = untilMs(row?.untilInMs);
  return left === null ? { written: true } : { written: true, untilInMs: left };
}

export function receiveEvent(db: CountingDb, table: MysqlTable, owner: string, taskId: string, attempt: number, seq: number, name: string): Promise<EventReceipt> {
  const id = taskId.toLowerCase();
  return atomically(db, async (tx): Promise<EventReceipt> => {
    const [wait] = await tx.query<{ state: string; untilInMs: unknown }>(
      `SELECT s.state, ${msUntil("s.until")} AS untilInMs
       FROM ${table.steps} s JOIN ${table.sql} t ON t.id = s.task_id
       WHERE s.task_id = ? AND s.seq = ? AND ${HELD}
       FOR UPDATE`,
      [id, seq, id, owner, attempt],
    );
    if (!wait || wait.state !== "waiting") return { kind: "lost" };
    const [event] = await tx.query<{ id: unknown; payload: string }>(
      `SELECT id, payload FROM ${table.events} WHERE task_id = ? AND name = ? AND consumed_seq IS NULL ORDER BY id LIMIT 1 FOR UPDATE`,
      [id, name],
    );
    if (event) {
      await tx.write(`UPDATE ${table.events} SET consumed_seq = ? WHERE id = ?`, [seq, String(event.id)]);
      await tx.write(`UPDATE ${table.steps} SET state = 'done', result = ?, finished_at = ${NOW} WHERE task_id = ? AND seq = ?`, [event.payload, id, seq]);
      return { kind: "received", payloadJson: event.payload };
    }
    const left = untilMs(wait.untilInMs);
    if (left !== null && left <= 0) {
      await tx.write(`UPDATE ${table.steps} SET state = 'done', result = NULL, finished_at = ${NOW} WHERE task_id = ? AND seq = ?`, [id, seq]);
      return { kind: "timed-out" };
    }
    return { kind: "waiting", dueInMs: left };
  });
}

export function suspend(db: CountingDb, table: MysqlTable, owner: string, suspension: Suspension): Promise<SuspendedTask | undefined> {
  const id = suspension.id.toLowerCase();
  const { attempt, seq, event } = suspension;
  return atomically(db, async (tx) => {
    const [held] = await tx.query<{ queue: string }>(`SELECT t.queue FROM ${table.sql} t WHERE ${HELD} FOR UPDATE`, [id, owner, attempt]);
    if (!held) return undefined;
    const [step] = await tx.query<{ until: string | null; untilInMs: unknown }>(
      `SELECT ${timeText("until")} AS until, ${msUntil("until")} AS untilInMs FROM ${table.steps} WHERE task_id = ? AND seq = ?`,
      [id, seq],
    );
    const until = step?.until ?? null;
    // A locking read sees the events committed by now, not those of this transaction's snapshot.
    const waiting =
      event !== undefined &&
      (await tx.query(`SELECT 1 FROM ${table.events} WHERE task_id = ? AND name = ? AND consumed_seq IS NULL LIMIT 1 LOCK IN SHARE MODE`, [id, event])).length > 0;
    const dueNow = waiting;
    await tx.write(
      `UPDATE ${table.sql}
       SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = ${NOW}, waiting_for = ?, run_at = ${dueNow ? NOW : "?"}
       WHERE id = ?`,
      dueNow ? [event ?? null, id] : [event ?? null, until ?? FOREVER_TEXT, id],
    );
    return { id: suspension.id, queue: held.queue, dueInMs: dueNow ? 0 : untilMs(step?.untilInMs) };
  });
}

export async function sendEvent(db: CountingDb, table: MysqlTable, taskId: string, name: string, payloadJson: string): Promise<SentEvent> {
  const id = taskId.toLowerCase();
  return atomically(db, async (tx): Promise<SentEvent> => {
    const [task] = await tx.query<{ queue: string; status: string; wakes: unknown }>(
      `SELECT queue, status, (status = 'pending' AND waiting_for <=> ?) AS wakes FROM ${table.sql} WHERE id = ? FOR UPDATE`,
      [name, id],
    );
    if (!task || (task.status !== "pending" && task.status !== "running")) return { accepted: false };
    await tx.write(`INSERT INTO ${table.events} (task_id, name, payload, sent_at) VALUES (?, ?, ?, ${NOW})`, [id, name, payloadJson]);
    if (!flag(task.wakes)) return { accepted: true };
    await tx.write(`UPDATE ${table.sql} SET run_at = LEAST(run_at, ${NOW}), waiting_for = NULL, updated_at = ${NOW} WHERE id = ?`, [id]);
    return { accepted: true, woken: { id: taskId, queue: task.queue } };
  });
}

/** Deletes the steps and events of the tasks `ids` (pruned in the same transaction). */
export async function deleteWorkflowRows(tx: CountingDb, table: MysqlTable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.write(`DELETE FROM ${table.steps} WHERE task_id IN (${placeholders(ids.length)})`, ids);
  await tx.write(`DELETE FROM ${table.events} WHERE task_id IN (${placeholders(ids.length)})`, ids);
}
