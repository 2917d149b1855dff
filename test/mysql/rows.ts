// Writes MySQL task rows straight into the table, in the states a crash or a lost message leaves behind, with times
// relative to the database clock (UTC_TIMESTAMP), and reads one back with its times as UTC Dates.

import type { Pool } from "mariadb";
import { rowValues, type RowSpec, type TaskRowRecord } from "../cleaner/rows.js";

const ago = (ms: string) => `UTC_TIMESTAMP(6) - INTERVAL (${ms}) * 1000 MICROSECOND`;

/** Inserts one row per spec (the same specs as the PostgreSQL tests' insertRows) and returns their ids in order. */
export async function insertMysqlRows(sql: Pool, specs: RowSpec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const spec of specs) {
    const v = rowValues(spec);
    await sql.query(
      `INSERT INTO tasks (id, name, queue, payload, status, attempts, max_attempts, created_at, updated_at, run_at, published_at,
                          lease_owner, lease_expires_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ${ago("?")}, UTC_TIMESTAMP(6), ${ago("?")},
               CASE WHEN ? IS NULL THEN NULL ELSE ${ago("?")} END,
               CASE WHEN ? THEN 'vanished-worker:1' END,
               CASE WHEN ? THEN ${ago("?")} END,
               CASE WHEN ? THEN ${ago("?")} END)`,
      [
        v.id,
        v.name,
        v.queue,
        v.payload,
        v.status,
        v.attempts,
        v.maxAttempts,
        v.createdAgoMs,
        v.runAgoMs,
        v.publishedAgoMs,
        v.publishedAgoMs ?? 0,
        v.running,
        v.running,
        v.leaseExpiredAgoMs,
        v.finished,
        v.finishedAgoMs,
      ],
    );
    ids.push(v.id);
  }
  return ids;
}

const TIMES = ["run_at", "lease_expires_at", "created_at", "updated_at", "finished_at", "published_at"];

/** The row of `id` with every column, times as UTC Dates and JSON parsed; undefined when it does not exist. */
export async function mysqlRowOf(sql: Pool, id: string): Promise<TaskRowRecord | undefined> {
  const rows = await sql.query<Array<Record<string, unknown>>>(
    `SELECT id, name, queue, CAST(payload AS CHAR) AS payload, status, priority, run_at, attempts, max_attempts, lease_owner,
            lease_expires_at, last_error, CAST(result AS CHAR) AS result, \`key\`, created_at, updated_at, finished_at, published_at
     FROM tasks WHERE id = ?`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  for (const column of TIMES) if (typeof row[column] === "string") row[column] = new Date(`${row[column].replace(" ", "T")}Z`);
  row.payload = JSON.parse(row.payload as string);
  row.result = typeof row.result === "string" ? JSON.parse(row.result) : null;
  return row as TaskRowRecord;
}
