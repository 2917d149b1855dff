// SQL units of durable workflows on PostgreSQL: a task's recorded steps, the record of one step (guarded by the run),
// a wait's receipt of an event, and the suspension of a sleeping or waiting run. Times are the database's clock
// (clock_timestamp(): a transactional step's record is timed when written, not when its transaction began).

import { atomically, type Db } from "../../../store/db.js";
import type { EventReceipt, NewStep, RecordedStep, StepRecord, StepRow, Suspension, SuspendedTask } from "../../../store/steps.js";
import { FOREVER, toStepRecord } from "../../../store/steps.js";
import type { PgTable } from "../table.js";

// The times as the driver parses timestamptz (to the millisecond, truncated), as it parses the task's own run_at: a
// sleep's wake-up and the run_at its suspension set compare equal.
const STEP_COLUMNS = `seq, name, kind, attempt, state, result, until, created_at AS "createdAt", finished_at AS "finishedAt"`;
const date = (value: unknown) => (value === null || value === undefined ? null : value instanceof Date ? value : new Date(value as string));

/** The run holds the task: `$1` its id, `$2` the owner, `$3` its attempt. */
const HELD = `t.id = $1::uuid AND t.lease_owner = $2 AND t.attempts = $3 AND t.status = 'running'`;

export async function loadSteps(db: Db, table: PgTable, taskId: string): Promise<StepRecord[]> {
  const rows = await db.query<StepRow>(`SELECT ${STEP_COLUMNS} FROM ${table.steps} WHERE task_id = $1::uuid ORDER BY seq`, [taskId], "load_steps");
  return rows.map((row) => toStepRecord(row, date));
}

export async function recordStep(db: Db, table: PgTable, owner: string, step: NewStep): Promise<RecordedStep> {
  const inMs = step.until && "inMs" in step.until ? step.until.inMs : null;
  const at = step.until && "at" in step.until ? step.until.at.toISOString() : null;
  const rows = await db.query<{ untilInMs: number | null }>(
    `INSERT INTO ${table.steps} AS s (task_id, seq, name, kind, attempt, state, result, until, created_at, finished_at)
     SELECT t.id, $4, $5, $6, $3, CASE WHEN $6 = 'wait' THEN 'waiting' ELSE 'done' END, $7,
            COALESCE(clock_timestamp() + $8::float8 * interval '1 millisecond', $9::timestamptz), clock_timestamp(),
            CASE WHEN $6 = 'wait' THEN NULL ELSE clock_timestamp() END
     FROM ${table.sql} t WHERE ${HELD}
     ON CONFLICT (task_id, seq) DO NOTHING
     RETURNING (extract(epoch FROM s.until - clock_timestamp()) * 1000)::float8 AS "untilInMs"`,
    [step.taskId, owner, step.attempt, step.seq, step.name, step.kind, step.resultJson, inMs, at],
    "record_step",
  );
  const row = rows[0];
  if (!row) return { written: false };
  return row.untilInMs === null ? { written: true } : { written: true, untilInMs: Math.max(0, Number(row.untilInMs)) };
}

export function receiveEvent(db: Db, table: PgTable, owner: string, taskId: string, attempt: number, seq: number, name: string): Promise<EventReceipt> {
  return atomically(db, async (tx) => {
    const [wait] = await tx.query<{ state: string; untilInMs: number | null }>(
      `SELECT s.state, (extract(epoch FROM s.until - clock_timestamp()) * 1000)::float8 AS "untilInMs"
       FROM ${table.steps} s JOIN ${table.sql} t ON t.id = s.task_id
       WHERE s.task_id = $1::uuid AND s.seq = $4 AND ${HELD}
       FOR UPDATE OF s`,
      [taskId, owner, attempt, seq],
    );
    if (!wait || wait.state !== "waiting") return { kind: "lost" };
    const [event] = await tx.query<{ id: string; payload: string }>(
      `SELECT id::text AS id, payload FROM ${table.events} WHERE task_id = $1::uuid AND name = $2 AND consumed_seq IS NULL ORDER BY id LIMIT 1 FOR UPDATE`,
      [taskId, name],
    );
    if (event) {
      await tx.query(`UPDATE ${table.events} SET consumed_seq = $2 WHERE id = $1::bigint`, [event.id, seq]);
      await tx.query(`UPDATE ${table.steps} SET state = 'done', result = $3, finished_at = clock_timestamp() WHERE task_id = $1::uuid AND seq = $2`, [
        taskId,
        seq,
        event.payload,
      ]);
      return { kind: "received", payloadJson: event.payload };
    }
    if (wait.untilInMs !== null && Number(wait.untilInMs) <= 0) {
      await tx.query(`UPDATE ${table.steps} SET state = 'done', result = NULL, finished_at = clock_timestamp() WHERE task_id = $1::uuid AND seq = $2`, [taskId, seq]);
      return { kind: "timed-out" };
    }
    return { kind: "waiting", dueInMs: wait.untilInMs === null ? null : Math.max(0, Number(wait.untilInMs)) };
  });
}

export function suspend(db: Db, table: PgTable, owner: string, suspension: Suspension): Promise<SuspendedTask | undefined> {
  const { id, attempt, seq, event } = suspension;
  return atomically(db, async (tx) => {
    // The row's lock first: an app's transaction sending the awaited event either committed before the next statement
    // reads the events (its event is seen), or waits for this commit and then finds the task waiting (and wakes it).
    const held = await tx.query(`SELECT 1 FROM ${table.sql} t WHERE ${HELD} FOR UPDATE`, [id, owner, attempt]);
    if (held.length === 0) return undefined;
    const [row] = await tx.query<{ queue: string; dueInMs: number; forever: boolean }>(
      `UPDATE ${table.sql} t
       SET status = 'pending', attempts = GREATEST(t.attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
           published_at = NULL, updated_at = now(), waiting_for = $2,
           run_at = CASE WHEN $2::text IS NOT NULL AND EXISTS (
                      SELECT 1 FROM ${table.events} e WHERE e.task_id = t.id AND e.name = $2 AND e.consumed_seq IS NULL)
                    THEN clock_timestamp()
                    ELSE COALESCE((SELECT s.until FROM ${table.steps} s WHERE s.task_id = t.id AND s.seq = $3), $4::timestamptz) END
       WHERE t.id = $1::uuid
       RETURNING t.queue, (extract(epoch FROM t.run_at - clock_timestamp()) * 1000)::float8 AS "dueInMs", t.run_at >= $4::timestamptz AS forever`,
      [id, event ?? null, seq, FOREVER.toISOString()],
    );
    if (!row) return undefined;
    return { id, queue: row.queue, dueInMs: row.forever ? null : Math.max(0, Number(row.dueInMs)) };
  });
}
