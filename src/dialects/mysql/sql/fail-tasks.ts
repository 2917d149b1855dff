// SQL unit: record failed runs, a batch per transaction. Each goes back to pending with run_at pushed out by its
// backoff, or to dead when its attempts are used up or the failure is final. Guarded by the lease. The error becomes
// last_error and joins the bounded `errors` history; finished_by keeps the worker's id.

import type { FailedTask, Failure } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { caseById } from "./case-by-id.js";
import { appendError } from "./error-history.js";
import { NOW, nowPlusMs, num, placeholders } from "./values.js";

interface HeldRow {
  id: string;
  name: string;
  queue: string;
  attempts: number | bigint;
  max_attempts: number | bigint;
}

/** Records the failures where `owner` still holds the lease (of the failed run's attempt, when given); returns the tasks it changed. */
export async function failTasks(db: CountingDb, table: MysqlTable, owner: string, failures: readonly Failure[]): Promise<FailedTask[]> {
  const byId = new Map(failures.map((f) => [f.id.toLowerCase(), f]));
  if (byId.size === 0) return [];
  const ids = [...byId.keys()];
  return atomically(db, async (tx) => {
    const held = await tx.query<HeldRow>(
      `SELECT id, name, queue, attempts, max_attempts FROM ${table.sql} FORCE INDEX (PRIMARY)
       WHERE id IN (${placeholders(ids.length)}) AND lease_owner = ? AND status = 'running'
       FOR UPDATE`,
      [...ids, owner],
    );
    // A failure of an earlier attempt than the row's: that run is over (a write retried after an unclear error).
    const current = held.filter((row) => {
      const attempt = byId.get(row.id.toLowerCase())!.attempt;
      return attempt === undefined || num(row.attempts) === attempt;
    });
    if (current.length === 0) return [];
    const decided = current.map((row) => {
      const failure = byId.get(row.id.toLowerCase())!;
      const reason = failure.finalReason ?? (num(row.attempts) >= num(row.max_attempts) ? "max-attempts" : null);
      return { row, failure, reason };
    });
    const params: unknown[] = [];
    const status = caseById(
      decided.map(({ row, reason }) => ({ id: row.id, sql: reason === null ? "'pending'" : "'dead'" })),
      "status",
      params,
    );
    const retries = decided.filter((d) => d.reason === null);
    const runAt = caseById(
      retries.map(({ row, failure }) => ({ id: row.id, sql: nowPlusMs(), values: [Math.round(failure.delayMs)] })),
      "run_at",
      params,
    );
    const dead = decided.filter((d) => d.reason !== null);
    const finishedAt = caseById(
      dead.map(({ row }) => ({ id: row.id, sql: NOW })),
      "NULL",
      params,
    );
    const lastError = caseById(
      decided.map(({ row, failure }) => ({ id: row.id, sql: "?", values: [failure.error] })),
      "last_error",
      params,
    );
    const errors = appendError(
      caseById(
        decided.map(({ row, failure }) => ({ id: row.id, sql: "?", values: [failure.error] })),
        "NULL",
        params,
      ),
    );
    await tx.write(
      `UPDATE ${table.sql} FORCE INDEX (PRIMARY)
       SET status = ${status}, run_at = ${runAt}, finished_at = ${finishedAt}, last_error = ${lastError}, errors = ${errors},
           finished_by = ?, lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = ${NOW}
       WHERE id IN (${placeholders(current.length)}) AND lease_owner = ? AND status = 'running'`,
      [...params, owner, ...current.map((row) => row.id), owner],
    );
    return decided.map(({ row, failure, reason }) => ({
      id: row.id,
      name: row.name,
      queue: row.queue,
      status: reason === null ? "pending" : "dead",
      attempts: num(row.attempts),
      lastError: failure.error,
      reason,
    }));
  });
}
