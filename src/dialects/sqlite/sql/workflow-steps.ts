// SQL units of durable workflows on SQLite: a task's recorded steps, the record of one step (guarded by the run), a
// wait's receipt of an event, the suspension of a sleeping or waiting run, an event sent in the app's transaction, and
// the deletion of pruned tasks' steps and events. One writer at a time: each unit that reads before it writes runs its
// statements in one transaction (statement-steps.ts), and an event's send writes first, so it holds the write lock
// before it reads whether the task waits.

import type { Db } from "../../../store/db.js";
import type { EventReceipt, NewStep, RecordedStep, SentEvent, StepRecord, StepRow, Suspension, SuspendedTask } from "../../../store/steps.js";
import { FOREVER, toStepRecord } from "../../../store/steps.js";
import { bind } from "../bind.js";
import { NOW, nowPlus, storedTime, toNullableDate } from "../clock.js";
import { runSteps, type Steps } from "../statement-steps.js";
import type { SqliteTable } from "../table.js";
import { jsonList } from "./task-row.js";

/** Milliseconds from the database's now to the stored time `column` (negative when passed). */
const msUntil = (column: string) => `CAST(ROUND((julianday(${column}) - julianday('now')) * 86400000) AS INTEGER)`;

/** The run holds the task: `{id}`, `{owner}`, `{attempt}`. */
const HELD = `t.id = {id} AND t.lease_owner = {owner} AND t.attempts = {attempt} AND t.status = 'running'`;

export async function loadSteps(db: Db, table: SqliteTable, taskId: string): Promise<StepRecord[]> {
  const rows = await db.query<StepRow>(
    ...bind(
      `SELECT seq, name, kind, attempt, state, result, until, created_at AS createdAt, finished_at AS finishedAt FROM ${table.steps} WHERE task_id = {id} ORDER BY seq`,
      { id: taskId },
    ),
  );
  return rows.map((row) => toStepRecord(row, toNullableDate));
}

export async function recordStep(db: Db, table: SqliteTable, owner: string, step: NewStep): Promise<RecordedStep> {
  const inMs = step.until && "inMs" in step.until ? Math.round(step.until.inMs) : null;
  const at = step.until && "at" in step.until ? storedTime(step.until.at) : null;
  const rows = await db.query<{ untilInMs: number | null }>(
    ...bind(
      `INSERT INTO ${table.steps} (task_id, seq, name, kind, attempt, state, result, until, created_at, finished_at)
       SELECT t.id, {seq}, {name}, {kind}, {attempt}, CASE WHEN {kind} = 'wait' THEN 'waiting' ELSE 'done' END, {result},
              CASE WHEN {inMs} IS NOT NULL THEN ${nowPlus("{inMs}")} ELSE {at} END, ${NOW}, CASE WHEN {kind} = 'wait' THEN NULL ELSE ${NOW} END
       FROM ${table.sql} t WHERE ${HELD}
       ON CONFLICT (task_id, seq) DO NOTHING
       RETURNING MAX(0, ${msUntil("until")}) AS untilInMs`,
      { id: step.taskId, owner, attempt: step.attempt, seq: step.seq, name: step.name, kind: step.kind, result: step.resultJson, inMs, at },
    ),
  );
  const row = rows[0];
  if (!row) return { written: false };
  return row.untilInMs === null ? { written: true } : { written: true, untilInMs: Number(row.untilInMs) };
}

export function receiveEvent(db: Db, table: SqliteTable, owner: string, taskId: string, attempt: number, seq: number, name: string): Promise<EventReceipt> {
  return runSteps(db, receiveSteps(table, { id: taskId, owner, attempt, seq, name }));
}

function* receiveSteps(table: SqliteTable, values: { id: string; owner: string; attempt: number; seq: number; name: string }): Steps<EventReceipt> {
  const [wait] = (yield bind(
    `SELECT s.state, MAX(0, ${msUntil("s.until")}) AS untilInMs
     FROM ${table.steps} s JOIN ${table.sql} t ON t.id = s.task_id
     WHERE s.task_id = {id} AND s.seq = {seq} AND ${HELD}`,
    values,
  )) as Array<{ state: string; untilInMs: number | null }>;
  if (!wait || wait.state !== "waiting") return { kind: "lost" };
  const [event] = (yield bind(
    `SELECT id, payload FROM ${table.events} WHERE task_id = {id} AND name = {name} AND consumed_seq IS NULL ORDER BY id LIMIT 1`,
    values,
  )) as Array<{
    id: number;
    payload: string;
  }>;
  if (event) {
    yield bind(`UPDATE ${table.events} SET consumed_seq = {seq} WHERE id = {eventId}`, { seq: values.seq, eventId: event.id });
    yield bind(`UPDATE ${table.steps} SET state = 'done', result = {payload}, finished_at = ${NOW} WHERE task_id = {id} AND seq = {seq}`, {
      ...values,
      payload: event.payload,
    });
    return { kind: "received", payloadJson: event.payload };
  }
  if (wait.untilInMs !== null && Number(wait.untilInMs) <= 0) {
    yield bind(`UPDATE ${table.steps} SET state = 'done', result = NULL, finished_at = ${NOW} WHERE task_id = {id} AND seq = {seq}`, values);
    return { kind: "timed-out" };
  }
  return { kind: "waiting", dueInMs: wait.untilInMs === null ? null : Number(wait.untilInMs) };
}

export async function suspend(db: Db, table: SqliteTable, owner: string, suspension: Suspension): Promise<SuspendedTask | undefined> {
  const { id, attempt, seq, event } = suspension;
  const [row] = await db.query<{ queue: string; dueInMs: number; forever: number }>(
    ...bind(
      `UPDATE ${table.sql} AS t
       SET status = 'pending', attempts = MAX(t.attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = ${NOW}, waiting_for = {event},
           run_at = CASE WHEN {event} IS NOT NULL AND EXISTS (
                      SELECT 1 FROM ${table.events} e WHERE e.task_id = t.id AND e.name = {event} AND e.consumed_seq IS NULL)
                    THEN ${NOW} ELSE COALESCE((SELECT s.until FROM ${table.steps} s WHERE s.task_id = t.id AND s.seq = {seq}), {forever}) END
       WHERE ${HELD}
       RETURNING queue, MAX(0, ${msUntil("run_at")}) AS dueInMs, run_at >= {forever} AS forever`,
      { id, owner, attempt, seq, event: event ?? null, forever: storedTime(FOREVER) },
    ),
  );
  if (!row) return undefined;
  return { id, queue: row.queue, dueInMs: Number(row.forever) === 1 ? null : Number(row.dueInMs) };
}

export function sendEvent(db: Db, table: SqliteTable, taskId: string, name: string, payloadJson: string): Promise<SentEvent> {
  return runSteps(db, sendSteps(table, { id: taskId, name, payload: payloadJson }));
}

function* sendSteps(table: SqliteTable, values: { id: string; name: string; payload: string }): Steps<SentEvent> {
  const kept = yield bind(
    `INSERT INTO ${table.events} (task_id, name, payload, sent_at)
     SELECT id, {name}, {payload}, ${NOW} FROM ${table.sql} WHERE id = {id} AND status IN ('pending', 'running')
     RETURNING id`,
    values,
  );
  if (kept.length === 0) return { accepted: false };
  const [woken] = (yield bind(
    `UPDATE ${table.sql} SET run_at = MIN(run_at, ${NOW}), waiting_for = NULL, updated_at = ${NOW}
     WHERE id = {id} AND status = 'pending' AND waiting_for = {name}
     RETURNING id, queue`,
    values,
  )) as Array<{ id: string; queue: string }>;
  return woken ? { accepted: true, woken: { id: woken.id, queue: woken.queue } } : { accepted: true };
}

/** The statements that delete the steps and events of the tasks `ids` (pruned in the same transaction). */
export function* deleteWorkflowRows(table: SqliteTable, ids: readonly string[]): Steps<void> {
  const list = JSON.stringify(ids);
  yield bind(`DELETE FROM ${table.steps} WHERE task_id IN ${jsonList("{ids}")}`, { ids: list });
  yield bind(`DELETE FROM ${table.events} WHERE task_id IN ${jsonList("{ids}")}`, { ids: list });
}
