// SQL units: insert tasks none of which has a dedupe key. Nothing can conflict, so these are plain INSERTs, without the
// joins that dedupe needs: one for a batch (one row back for all tasks due now) and a lighter one for a single task.

import type { PgTable } from "../table.js";
import type { PreparedTask } from "../../../store/enqueue-rows.js";
import { NOTIFIED_GUARD, notifiedCte } from "./notify-wakeups.js";

/**
 * A row of insertKeylessTasksSql. `id` null: the row stands for every task not listed by id, whose run_at is `now()`
 * (so they are due). `id` set: a task delayed (or given a runAt) to another time.
 */
export interface KeylessInsertRow {
  id: string | null;
  runAtMs: number;
  due: boolean;
  /** See InsertedTask.dueInMs. */
  dueInMs: number | null;
}

/**
 * The statement. `$1` is the JSON array of insertKeylessTasksParams, `$2` is the publish flag of insertTasksSql (mark
 * due tasks published now), `$3`–`$6` are the name, queue, priority and max_attempts of the batch's first task, which
 * stand for every task whose JSON leaves them out. Same rows, run_at and published_at as insertTasksSql writes
 * (a JSON null payload too, which jsonb_to_recordset turns into SQL NULL). With `notify`, `$7` is the NOTIFY channel
 * that the new tasks' wake-ups (due now, or due later) are sent on, inside the enqueuing transaction (see
 * notify-wakeups.ts).
 */
export function insertKeylessTasksSql(table: PgTable, notify = false, traced = false): string {
  // With `traced`, the batch's one trace context (its enqueue call's span) is the last parameter; the column is named
  // only then (see insertTasksSql). A batch whose tasks carry different contexts takes insertTasksSql.
  const tc = traced ? `, $${notify ? 8 : 7}::text` : "";
  return `WITH inserted AS (
  INSERT INTO ${table.sql} (id, name, queue, payload, priority, run_at, max_attempts, published_at${traced ? ", trace_context" : ""})
  SELECT id, COALESCE(name, $3::text), COALESCE(queue, $4::text), COALESCE(payload, 'null'::jsonb),
         COALESCE(priority, $5::int), due_at, COALESCE(max_attempts, $6::int),
         CASE WHEN $2::boolean AND due_at <= now() THEN now() END${tc}
  FROM (
    SELECT *, COALESCE(run_at, now() + COALESCE(delay_ms, 0) * interval '1 millisecond') AS due_at
    FROM jsonb_to_recordset($1::jsonb) AS r(
      id uuid, name text, queue text, payload jsonb, priority int, delay_ms bigint, run_at timestamptz, max_attempts int)
  ) AS timed
  RETURNING id, queue, run_at
)${notify ? `, ${notifiedCte("$7", "inserted")}` : ""}
SELECT id::text AS id, (extract(epoch FROM run_at) * 1000)::float8 AS "runAtMs", run_at <= now() AS due,
       CASE WHEN run_at > now() THEN GREATEST(0, extract(epoch FROM run_at - statement_timestamp()) * 1000)::float8 END AS "dueInMs"
FROM inserted WHERE run_at <> now()
UNION ALL
SELECT NULL, (extract(epoch FROM now()) * 1000)::float8, true, NULL${notify ? ` WHERE ${NOTIFIED_GUARD}` : ""}`;
}

/**
 * The parameters of insertKeylessTasksSql for a non-empty batch. Each task's JSON carries its id and payload (spliced
 * in as already-serialised JSON) and only the fields that differ from the first task's or from the defaults
 * (no delay, no runAt), so a uniform batch sends about a third of the bytes that insertTasksParam does.
 */
export function insertKeylessTasksParams(rows: readonly PreparedTask[], publishes: boolean, channel?: string): unknown[] {
  const first = rows[0]!;
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let part = `{"id":"${row.id}","payload":${row.json}`;
    if (row.name !== first.name) part += `,"name":${JSON.stringify(row.name)}`;
    if (row.queue !== first.queue) part += `,"queue":${JSON.stringify(row.queue)}`;
    if (row.priority !== first.priority) part += `,"priority":${row.priority}`;
    if (row.maxAttempts !== first.maxAttempts) part += `,"max_attempts":${row.maxAttempts}`;
    if (row.delayMs !== 0) part += `,"delay_ms":${row.delayMs}`;
    if (row.runAt) part += `,"run_at":"${row.runAt.toISOString()}"`;
    parts[i] = `${part}}`;
  }
  const params: unknown[] = [`[${parts.join(",")}]`, publishes, first.name, first.queue, first.priority, first.maxAttempts];
  if (channel !== undefined) params.push(channel);
  if (isTraced(rows)) params.push(first.traceContext ?? null);
  return params;
}

/**
 * The statement for exactly one task without a key, with one parameter per column: about half the database time of
 * insertKeylessTasksSql for one row (0.14 against 0.27 ms), and one task is what an enqueue inside a business
 * transaction sends. Same row, run_at and published_at; it returns one KeylessInsertRow (id null: the one task).
 * With `notify`, `$10` is the NOTIFY channel its wake-up (due now, or due later) is sent on, inside the enqueuing
 * transaction.
 */
export function insertOneKeylessTaskSql(table: PgTable, notify = false, traced = false): string {
  const dueAt = `COALESCE($6::timestamptz, now() + $7::bigint * interval '1 millisecond')`;
  // With `traced`, the trace context is the last parameter.
  const insert = `INSERT INTO ${table.sql} (id, name, queue, payload, priority, run_at, max_attempts, published_at${traced ? ", trace_context" : ""})
VALUES ($1::uuid, $2::text, $3::text, $4::jsonb, $5::int, ${dueAt}, $8::int, CASE WHEN $9::boolean AND ${dueAt} <= now() THEN now() END${traced ? `, $${notify ? 11 : 10}::text` : ""})`;
  const result = `NULL::text AS id, (extract(epoch FROM run_at) * 1000)::float8 AS "runAtMs", run_at <= now() AS due,
  CASE WHEN run_at > now() THEN GREATEST(0, extract(epoch FROM run_at - statement_timestamp()) * 1000)::float8 END AS "dueInMs"`;
  if (!notify) return `${insert}\nRETURNING ${result}`;
  return `WITH inserted AS (
${insert}
  RETURNING id, queue, run_at
), ${notifiedCte("$10", "inserted")}
SELECT ${result} FROM inserted WHERE ${NOTIFIED_GUARD}`;
}

/** The parameters of insertOneKeylessTaskSql. runAt goes as ISO text, as in the JSON of the batch statements. */
export function insertOneKeylessTaskParams(row: PreparedTask, publishes: boolean, channel?: string): unknown[] {
  const runAt = row.runAt ? row.runAt.toISOString() : null;
  const params: unknown[] = [row.id, row.name, row.queue, row.json, row.priority, runAt, row.delayMs, row.maxAttempts, publishes];
  if (channel !== undefined) params.push(channel);
  if (row.traceContext != null) params.push(row.traceContext);
  return params;
}

/** True when some task carries a trace context: the statements then write the trace_context column. */
export function isTraced(rows: readonly PreparedTask[]): boolean {
  return rows.some((row) => row.traceContext != null);
}

/** True when every task carries the same trace context (or none does): the keyless statements can write it. */
export function oneTraceContext(rows: readonly PreparedTask[]): boolean {
  const first = rows[0]?.traceContext ?? null;
  return rows.every((row) => (row.traceContext ?? null) === first);
}
