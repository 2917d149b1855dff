// SQL unit: mark tasks succeeded with their results, a batch per transaction. Guarded by the lease: a task whose lease
// this worker lost is left alone (and not reported back). The times are UTC_TIMESTAMP(6) of each statement, so inside a
// transactional handler's transaction they are the completion's time, not the transaction's start.
// finished_by keeps the worker's id; last_error is cleared (the failed attempts stay in `errors`, as history).

import type { Completion } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { caseById } from "./case-by-id.js";
import { NOW, placeholders } from "./values.js";
import { runAttempts, sameRun } from "./run-fence.js";

/**
 * Marks the tasks succeeded where `owner` still holds the lease; returns the ids it marked. The locking read by primary
 * key says which rows the lease guard lets through (`lease_owner = owner` implies running: every way out of running
 * clears it) and holds them, so the UPDATE changes exactly those; it waits for a row another transaction holds (a
 * cleaner deciding about it), as the guard must.
 */
export async function completeTasks(db: CountingDb, table: MysqlTable, owner: string, completions: readonly Completion[]): Promise<string[]> {
  const results = new Map(completions.map((c) => [c.id.toLowerCase(), c.resultJson]));
  if (results.size === 0) return [];
  const ids = [...results.keys()];
  const runs = runAttempts(
    completions.map((c) => c.id),
    completions.map((c) => c.attempt),
  );
  return atomically(db, async (tx) => {
    const locked = await tx.query<{ id: string; queue: string; attempts: unknown }>(
      `SELECT id, queue, attempts FROM ${table.sql} FORCE INDEX (PRIMARY) WHERE id IN (${placeholders(ids.length)}) AND lease_owner = ? FOR UPDATE`,
      [...ids, owner],
    );
    const held = sameRun(locked, runs);
    if (held.length === 0) return [];
    const params: unknown[] = [];
    // Most handlers return nothing: then every row gets the same value and the statement needs no CASE over the ids.
    const withResults = held.some((row) => (results.get(row.id.toLowerCase()) ?? "null") !== "null");
    const result = withResults
      ? caseById(
          held.map((row) => ({ id: row.id, sql: "?", values: [results.get(row.id.toLowerCase()) ?? "null"] })),
          "result",
          params,
        )
      : (params.push("null"), "?");
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
       SET status = 'succeeded', result = ${result}, finished_at = ${NOW}, lease_owner = NULL, lease_expires_at = NULL, updated_at = ${NOW},
           finished_by = ?, last_error = NULL
       WHERE id IN (${placeholders(held.length)}) AND lease_owner = ?`,
      [...params, owner, ...held.map((row) => row.id), owner],
    );
    return held.map((row) => row.id);
  });
}
