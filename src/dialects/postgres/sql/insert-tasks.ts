// SQL unit: insert tasks, skipping keys that already exist, and report one row per input in input order.
// One JSON parameter carries every row, so the statement is the same for 1 task and for 20,000.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { InsertedTask, PreparedTask } from "../../../store/enqueue-rows.js";
import { NOTIFIED_GUARD, notifiedCte } from "./notify-wakeups.js";

/**
 * The insert statement. `$1` is the JSON array built by insertTasksParam; `$2` says whether the caller will publish
 * the due tasks' wake-ups after commit: then their published_at is set now (optimistically, so the happy path costs no
 * second statement) and a failed publish clears it again (markUnpublished).
 * The existing-key lookup is a LATERAL subquery with LIMIT 1 (keys are unique), which the planner cannot flatten into a
 * join, so it stays one probe of the key index per input row that needs one: as a join, the planner (which guesses 100
 * input rows) hashed the whole table instead, a sequential scan on every enqueue.
 * A payload of JSON null comes out of jsonb_to_recordset as SQL NULL (every payload is present in $1), so it is put
 * back as the JSON value null. Batches without keys take the statements of insert-keyless-tasks.ts instead.
 * With `notify`, `$3` is the NOTIFY channel the new tasks' wake-ups (due now, or due later) are sent on, inside the
 * enqueuing transaction.
 */
export function insertTasksSql(table: PgTable, notify = false, concurrencyKeys = false, traced = false): string {
  const t = table.sql;
  // The concurrency_key column only when a task has one, so an app that declares no key enqueues on a table without it;
  // trace_context likewise only when a task carries a trace context.
  const ck = (concurrencyKeys ? ", concurrency_key" : "") + (traced ? ", trace_context" : "");
  return `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    i int, id uuid, name text, queue text, payload jsonb, priority int,
    delay_ms bigint, run_at timestamptz, max_attempts int, key text${concurrencyKeys ? ", concurrency_key text" : ""}${traced ? ", trace_context text" : ""})
), inserted AS (
  INSERT INTO ${t} (id, name, queue, payload, priority, run_at, max_attempts, key, published_at${ck})
  SELECT id, name, queue, COALESCE(payload, 'null'::jsonb), priority, due_at, max_attempts, key,
         CASE WHEN $2::boolean AND due_at <= now() THEN now() END${ck}
  FROM (SELECT *, COALESCE(run_at, now() + delay_ms * interval '1 millisecond') AS due_at FROM input) AS timed
  ORDER BY i
  ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
  RETURNING id, name, queue, status, key, run_at
), found AS (
  SELECT input.i, COALESCE(ins.id, twin.id, old.id) AS id,
         COALESCE(ins.name, twin.name, old.name) AS name,
         COALESCE(ins.queue, twin.queue, old.queue) AS queue,
         COALESCE(ins.status, twin.status, old.status) AS status,
         input.key,
         COALESCE(ins.run_at, twin.run_at, old.run_at) AS run_at,
         ins.id IS NOT NULL AS created
  FROM input
  LEFT JOIN inserted ins ON ins.id = input.id
  LEFT JOIN inserted twin ON ins.id IS NULL AND twin.key = input.key
  LEFT JOIN LATERAL (
    SELECT id, name, queue, status, run_at FROM ${t} WHERE key = input.key AND ins.id IS NULL AND twin.id IS NULL LIMIT 1
  ) old ON true
)${notify ? `, ${notifiedCte("$3", "inserted")}` : ""}
SELECT i, id::text AS id, name, queue, status, key,
       (extract(epoch FROM run_at) * 1000)::float8 AS "runAtMs",
       created, (created AND run_at <= now()) AS due,
       CASE WHEN created AND run_at > now() THEN GREATEST(0, extract(epoch FROM run_at - statement_timestamp()) * 1000)::float8 END AS "dueInMs"
FROM found${notify ? ` WHERE ${NOTIFIED_GUARD}` : ""} ORDER BY i`;
}

/** The single parameter of insertTasksSql: a JSON array, with each payload spliced in as already-serialised JSON. */
export function insertTasksParam(rows: readonly PreparedTask[]): string {
  const parts = rows.map(
    (row, i) =>
      `{"i":${i},"id":"${row.id}","name":${JSON.stringify(row.name)},"queue":${JSON.stringify(row.queue)},` +
      `"payload":${row.json},"priority":${row.priority},"delay_ms":${row.delayMs},` +
      `"run_at":${row.runAt ? `"${row.runAt.toISOString()}"` : "null"},"max_attempts":${row.maxAttempts},` +
      `"key":${row.key === null ? "null" : JSON.stringify(row.key)},"concurrency_key":${row.concurrencyKey == null ? "null" : JSON.stringify(row.concurrencyKey)}` +
      `${row.traceContext == null ? "" : `,"trace_context":${JSON.stringify(row.traceContext)}`}}`,
  );
  return `[${parts.join(",")}]`;
}

/** Tasks by key: used when a key conflicted with a task committed after the insert's snapshot was taken. */
export async function selectTasksByKeys(db: Db, table: PgTable, keys: readonly string[]): Promise<InsertedTask[]> {
  return db.query<InsertedTask>(
    `SELECT 0 AS i, id::text AS id, name, queue, status, key,
            (extract(epoch FROM run_at) * 1000)::float8 AS "runAtMs", false AS created, false AS due, NULL::float8 AS "dueInMs"
     FROM ${table.sql} WHERE key = ANY($1::text[])`,
    [keys],
  );
}
