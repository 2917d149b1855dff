// SQL units: record how runs ended, many in one statement each, guarded by the lease (`lease_owner = ?`): a
// success, a failure (pending again after its backoff, or dead), a heartbeat, a release at shutdown. Outcomes keep the
// worker's id in finished_by; a failure joins the bounded `errors` history, a success clears last_error.

import type { Completion, FailedTask, Failure, LeaseState, WakeupTarget } from "../../../store/task-writes.js";
import { NOW, nowPlus } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { appendError } from "./error-history.js";
import { jsonList } from "./task-row.js";

/** Marks the tasks succeeded where `owner` still holds the lease; returns the ids it marked. */
export async function completeTasks(db: Db, table: SqliteTable, owner: string, completions: readonly Completion[]): Promise<string[]> {
  const param = `[${completions.map((c) => `{"id":"${c.id}","attempt":${c.attempt ?? "null"},"result":${c.resultJson}}`).join(",")}]`;
  const rows = await db.query<{ id: string }>(
    ...bind(
      `UPDATE ${table.sql} AS t
     SET status = 'succeeded', result = r.result, finished_at = ${NOW}, lease_owner = NULL, lease_expires_at = NULL, updated_at = ${NOW},
         finished_by = {owner}, last_error = NULL
     FROM (SELECT value ->> '$.id' AS id, value ->> '$.attempt' AS attempt, value -> '$.result' AS result FROM json_each({completions})) AS r
     WHERE t.id = r.id AND t.lease_owner = {owner} AND t.status = 'running' AND (r.attempt IS NULL OR t.attempts = r.attempt)
     RETURNING id`,
      { completions: param, owner },
    ),
  );
  return rows.map((row) => row.id);
}

/** Records failed runs where `owner` still holds the lease; returns the tasks it changed. */
export async function failTasks(db: Db, table: SqliteTable, owner: string, failures: readonly Failure[]): Promise<FailedTask[]> {
  const deadReason = `COALESCE(r.final_reason, CASE WHEN t.attempts >= t.max_attempts THEN 'max-attempts' END)`;
  const rows = await db.query<Omit<FailedTask, "reason">>(
    ...bind(
      `UPDATE ${table.sql} AS t
     SET status = CASE WHEN ${deadReason} IS NULL THEN 'pending' ELSE 'dead' END,
         run_at = CASE WHEN ${deadReason} IS NULL THEN ${nowPlus("r.delay_ms")} ELSE t.run_at END,
         finished_at = CASE WHEN ${deadReason} IS NULL THEN NULL ELSE ${NOW} END,
         last_error = r.error, errors = ${appendError("r.error")}, finished_by = {owner},
         lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = ${NOW}
     FROM (SELECT value ->> '$.id' AS id, value ->> '$.attempt' AS attempt, value ->> '$.error' AS error,
                  value ->> '$.delay_ms' AS delay_ms, value ->> '$.final_reason' AS final_reason FROM json_each({failures})) AS r
     WHERE t.id = r.id AND t.lease_owner = {owner} AND t.status = 'running' AND (r.attempt IS NULL OR t.attempts = r.attempt)
     RETURNING id, name, queue, status, attempts, last_error AS lastError`,
      {
        failures: JSON.stringify(
          failures.map((f) => ({ id: f.id, attempt: f.attempt ?? null, error: f.error, delay_ms: Math.round(f.delayMs), final_reason: f.finalReason })),
        ),
        owner,
      },
    ),
  );
  // RETURNING cannot read the FROM clause: the reason comes from the input, or is max-attempts when attempts ran out.
  const given = new Map(failures.map((failure) => [failure.id, failure.finalReason]));
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts), reason: row.status === "dead" ? (given.get(row.id) ?? "max-attempts") : null }));
}

/** The heartbeat: extends the leases `owner` holds among `ids`; every other id is lost (SQLite has no row locks to wait out). */
export async function extendLeases(
  db: Db,
  table: SqliteTable,
  owner: string,
  ids: readonly string[],
  leaseMs: number,
  attempts?: readonly number[],
): Promise<LeaseState[]> {
  const unique = [...new Set(ids)];
  const rows = await db.query<{ id: string }>(
    ...bind(
      `UPDATE ${table.sql} SET lease_expires_at = ${nowPlus("{leaseMs}")}, updated_at = ${NOW}
       WHERE id IN ${jsonList("{ids}")} AND lease_owner = {owner} AND status = 'running' AND ${SAME_RUN}
       RETURNING id`,
      { ids: JSON.stringify(unique), owner, leaseMs: Math.round(leaseMs), runs: runsById(ids, attempts) },
    ),
  );
  const extended = new Set(rows.map((row) => row.id));
  return unique.map((id) => ({ id, extended: extended.has(id), lost: !extended.has(id) }));
}

/** Puts the tasks `owner` holds among `ids` back to pending with attempts - 1 (graceful shutdown). */
export function releaseTasks(db: Db, table: SqliteTable, owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<WakeupTarget[]> {
  return db.query<WakeupTarget>(
    ...bind(
      `UPDATE ${table.sql}
       SET status = 'pending', attempts = MAX(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL, published_at = NULL, updated_at = ${NOW}
       WHERE id IN ${jsonList("{ids}")} AND lease_owner = {owner} AND status = 'running' AND ${SAME_RUN}
       RETURNING id, queue`,
      { ids: JSON.stringify(ids), owner, runs: runsById(ids, attempts) },
    ),
  );
}

/**
 * The row is the run the write names: `{runs}` maps an id to its run's attempt (a JSON object, read once per statement
 * and looked up per row the id list found); an id without one matches any run of the owner.
 */
export const SAME_RUN = `attempts = COALESCE(json_extract({runs}, '$."' || id || '"'), attempts)`;

/** `{runs}` for SAME_RUN: each id's attempt, in the order of `ids`. */
export function runsById(ids: readonly string[], attempts: readonly number[] | undefined): string {
  if (!attempts) return "{}";
  return JSON.stringify(Object.fromEntries(ids.map((id, i) => [id, attempts[i]])));
}
