// SQL unit: record failed runs, many in one statement. Each goes back to pending with run_at pushed out by its
// backoff, or to dead when its attempts are used up or the failure is final. Guarded by the lease. The error becomes
// last_error and joins the bounded `errors` history; finished_by keeps the worker's id.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { FailedTask, Failure } from "../../../store/task-writes.js";
import { appendError } from "./error-history.js";

/** Records the failures where `owner` still holds the lease (of the failed run's attempt, when given); returns the tasks it changed. */
export function failTasks(db: Db, table: PgTable, owner: string, failures: readonly Failure[]): Promise<FailedTask[]> {
  const t = table.sql;
  return db.query<FailedTask>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, attempt int, error text, delay_ms bigint, final_reason text)
     ), decided AS (
       SELECT t.id, input.error, input.delay_ms,
              COALESCE(input.final_reason, CASE WHEN t.attempts >= t.max_attempts THEN 'max-attempts' END) AS dead_reason
       FROM ${t} t JOIN input ON input.id = t.id
       WHERE t.lease_owner = $2 AND t.status = 'running' AND (input.attempt IS NULL OR t.attempts = input.attempt)
     )
     UPDATE ${t} t
     SET status = CASE WHEN d.dead_reason IS NULL THEN 'pending' ELSE 'dead' END,
         run_at = CASE WHEN d.dead_reason IS NULL THEN now() + d.delay_ms * interval '1 millisecond' ELSE t.run_at END,
         finished_at = CASE WHEN d.dead_reason IS NULL THEN NULL ELSE now() END,
         last_error = d.error, errors = ${appendError("d.error")}, finished_by = $2,
         lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = now()
     FROM decided d
     WHERE t.id = d.id AND t.lease_owner = $2 AND t.status = 'running'
     RETURNING t.id::text AS id, t.name, t.queue, t.status, t.attempts, t.last_error AS "lastError", d.dead_reason AS reason`,
    [
      JSON.stringify(failures.map((f) => ({ id: f.id, attempt: f.attempt ?? null, error: f.error, delay_ms: Math.round(f.delayMs), final_reason: f.finalReason }))),
      owner,
    ],
    "ptq_fail",
  );
}
