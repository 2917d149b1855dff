// SQL units: insert tasks, skipping keys that already exist (ON CONFLICT DO NOTHING), returning the rows it wrote.
// One JSON parameter carries a whole batch; a single task takes a statement with one parameter per column.

import type { InsertedTask, PreparedTask } from "../../../store/enqueue-rows.js";
import { NOW, nowPlus, storedTime, toDate } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { TaskQueueInternalError } from "../../../errors.js";

/** What the insert statements return: the rows they wrote (a row skipped for its key is absent). */
export interface WrittenRow {
  id: string;
  run_at: unknown;
  due: number;
}

const COLUMNS = "id, name, queue, payload, priority, run_at, max_attempts, key, published_at, created_at, updated_at";
/** The concurrency_key column only when a task has one, so an app that declares no key enqueues on a table without it. */
const hasConcurrencyKey = (rows: readonly PreparedTask[]) => rows.some((row) => row.concurrencyKey != null);
/** The trace_context column likewise only when a task carries a trace context. */
const isTraced = (rows: readonly PreparedTask[]) => rows.some((row) => row.traceContext != null);

/**
 * The batch statement: {rows} is the JSON array of insertTasksParam, {publishes} is 1 when the caller publishes the
 * due tasks' wake-ups after commit (their published_at is set now; a failed publish clears it again).
 */
export function insertTasksStatement(table: SqliteTable, rows: readonly PreparedTask[], publishes: boolean): [string, unknown[]] {
  return bind(insertTasksSql(table, hasConcurrencyKey(rows), isTraced(rows)), { rows: insertTasksParam(rows), publishes: publishes ? 1 : 0 });
}

function insertTasksSql(table: SqliteTable, concurrencyKeys: boolean, traced: boolean): string {
  const ck = (concurrencyKeys ? ", concurrency_key" : "") + (traced ? ", trace_context" : "");
  return `WITH input AS (
  SELECT value ->> '$.id' AS id, value ->> '$.name' AS name, value ->> '$.queue' AS queue, value ->> '$.payload' AS payload,
         value ->> '$.priority' AS priority, value ->> '$.max_attempts' AS max_attempts, value ->> '$.key' AS key,
         COALESCE(value ->> '$.run_at', ${nowPlus("value ->> '$.delay_ms'")}) AS due_at, key AS position,
         value ->> '$.concurrency_key' AS concurrency_key, value ->> '$.trace_context' AS trace_context
  FROM json_each({rows})
)
INSERT INTO ${table.sql} (${COLUMNS}${ck})
SELECT id, name, queue, payload, priority, due_at, max_attempts, key, CASE WHEN {publishes} AND due_at <= ${NOW} THEN ${NOW} END, ${NOW}, ${NOW}${ck}
FROM input WHERE true ORDER BY position
ON CONFLICT (key) DO NOTHING
RETURNING id, run_at, run_at <= ${NOW} AS due`;
}

/** The {rows} parameter: each payload travels as its JSON text. */
function insertTasksParam(rows: readonly PreparedTask[]): string {
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    parts[i] =
      `{"id":"${row.id}","name":${JSON.stringify(row.name)},"queue":${JSON.stringify(row.queue)},"payload":${JSON.stringify(row.json)},` +
      `"priority":${row.priority},"max_attempts":${row.maxAttempts},"delay_ms":${row.delayMs}` +
      `${row.runAt ? `,"run_at":"${storedTime(row.runAt)}"` : ""}${row.key === null ? "" : `,"key":${JSON.stringify(row.key)}`}` +
      `${row.concurrencyKey == null ? "" : `,"concurrency_key":${JSON.stringify(row.concurrencyKey)}`}` +
      `${row.traceContext == null ? "" : `,"trace_context":${JSON.stringify(row.traceContext)}`}}`;
  }
  return `[${parts.join(",")}]`;
}

/** The statement for one task, one parameter per column. */
export function insertOneTaskStatement(table: SqliteTable, row: PreparedTask, publishes: boolean): [string, unknown[]] {
  const dueAt = `COALESCE({runAt}, ${nowPlus("{delayMs}")})`;
  const keyed = row.concurrencyKey != null;
  const traced = row.traceContext != null;
  return bind(
    `INSERT INTO ${table.sql} (${COLUMNS}${keyed ? ", concurrency_key" : ""}${traced ? ", trace_context" : ""})
VALUES ({id}, {name}, {queue}, {payload}, {priority}, ${dueAt}, {maxAttempts}, {key}, CASE WHEN {publishes} AND ${dueAt} <= ${NOW} THEN ${NOW} END, ${NOW}, ${NOW}${keyed ? ", {concurrencyKey}" : ""}${traced ? ", {traceContext}" : ""})
ON CONFLICT (key) DO NOTHING
RETURNING id, run_at, run_at <= ${NOW} AS due`,
    {
      id: row.id,
      name: row.name,
      queue: row.queue,
      payload: row.json,
      priority: row.priority,
      runAt: row.runAt ? storedTime(row.runAt) : null,
      delayMs: row.delayMs,
      maxAttempts: row.maxAttempts,
      key: row.key,
      publishes: publishes ? 1 : 0,
      ...(keyed && { concurrencyKey: row.concurrencyKey }),
      ...(traced && { traceContext: row.traceContext }),
    },
  );
}

/**
 * One InsertedTask per input, in input order: a row the statement wrote is created; a keyed input it skipped gets id
 * null, for the caller to look up by key (an existing task, or a twin earlier in the same batch).
 */
export function insertedTasks(rows: readonly PreparedTask[], written: readonly WrittenRow[]): InsertedTask[] {
  const byId = new Map(written.map((row) => [row.id, row]));
  return rows.map((task, i): InsertedTask => {
    const row = byId.get(task.id);
    if (!row) {
      if (task.key === null) throw new TaskQueueInternalError(`the insert wrote no row for task ${task.id} (${task.name}), which has no key`);
      return { i, id: null, name: null, queue: null, status: null, key: task.key, runAtMs: null, created: false, due: false };
    }
    return {
      i,
      id: task.id,
      name: task.name,
      queue: task.queue,
      status: "pending",
      key: task.key,
      runAtMs: toDate(row.run_at).getTime(),
      created: true,
      due: Number(row.due) === 1,
    };
  });
}

/** Tasks by key, as enqueue reports an existing task. */
export async function selectTasksByKeys(db: Db, table: SqliteTable, keys: readonly string[]): Promise<InsertedTask[]> {
  const rows = await db.query<{ id: string; name: string; queue: string; status: string; key: string; run_at: unknown }>(
    ...bind(`SELECT id, name, queue, status, key, run_at FROM ${table.sql} WHERE key IN (SELECT value FROM json_each({keys}))`, { keys: JSON.stringify(keys) }),
  );
  return rows.map((row) => ({
    i: 0,
    id: row.id,
    name: row.name,
    queue: row.queue,
    status: row.status,
    key: row.key,
    runAtMs: toDate(row.run_at).getTime(),
    created: false,
    due: false,
  }));
}
