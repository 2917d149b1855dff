// SQL unit: mark tasks succeeded with their results, many in one statement.
// Guarded by the lease: a task whose lease this worker lost is left alone (and not reported back). The times are the
// database's clock_timestamp(), not now(): inside a transactional handler's transaction now() is when it began.
// finished_by keeps the worker's id; last_error is cleared (the failed attempts stay in `errors`, as history).

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { Completion } from "../../../store/task-writes.js";

/**
 * Marks the tasks succeeded where `owner` still holds the lease; returns the ids it marked.
 *
 * Rows are addressed by primary key (`id = ANY($1)`, or `id = $1` for one). `lease_owner = $2` already implies status
 * running (every way out of running clears lease_owner), and leaving `status = 'running'` out keeps the planner off the
 * partial lease index: with it, a stale row estimate gave a nested loop that re-read the whole batch for every running
 * row (500 completions: 250,000 comparisons, 60–110 ms; by primary key: 8–19 ms).
 */
export async function completeTasks(db: Db, table: PgTable, owner: string, completions: readonly Completion[]): Promise<string[]> {
  // Most handlers return nothing: then only the ids (and their runs' attempts) travel, once (a JSON document of ids and
  // results was 2.5 times the bytes, parsed again by the server), and one id is read by primary key rather than through
  // an array's bitmap scan. A run's attempt fences the write: a row that is another run of the task is left alone.
  const withResults = completions.some((c) => c.resultJson !== "null");
  const one = completions.length === 1;
  const ids = one ? completions[0]!.id : completions.map((c) => c.id);
  const attempts = one ? (completions[0]!.attempt ?? null) : completions.map((c) => c.attempt ?? null);
  const target = withResults
    ? `FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, attempt int, result jsonb)
       WHERE ${one ? "t.id = $1::uuid" : "t.id = ANY($1::uuid[])"} AND t.id = r.id AND t.attempts = COALESCE(r.attempt, t.attempts)`
    : one
      ? "WHERE t.id = $1::uuid AND t.attempts = COALESCE($3::int, t.attempts)"
      : "FROM unnest($1::uuid[], $3::int[]) AS r(id, attempt) WHERE t.id = r.id AND t.attempts = COALESCE(r.attempt, t.attempts)";
  const results = () => `[${completions.map((c) => `{"id":"${c.id}","attempt":${c.attempt ?? "null"},"result":${c.resultJson}}`).join(",")}]`;
  const rows = await db.query<{ id: string }>(
    `UPDATE ${table.sql} t
     SET status = 'succeeded', result = ${withResults ? "r.result" : "NULL"}, finished_at = clock_timestamp(),
         lease_owner = NULL, lease_expires_at = NULL, finished_by = $2, last_error = NULL, updated_at = clock_timestamp()
     ${target} AND t.lease_owner = $2
     RETURNING t.id::text AS id`,
    [ids, owner, withResults ? results() : attempts],
    `ptq_complete_run${withResults ? "_results" : ""}${one ? "_one" : ""}`,
  );
  return rows.map((row) => row.id);
}
