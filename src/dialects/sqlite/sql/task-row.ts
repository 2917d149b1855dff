// The task table's columns as every SQLite SQL unit selects them, and their mapping to the TaskRecord handlers see.
// JSON columns are cast to text, so a row reads the same through better-sqlite3 and through Prisma (which would parse
// a JSONB column itself); times arrive as text or, through Prisma, as Dates.

import type { TaskRecord } from "../../../store/task-record.js";
import { toErrorHistory } from "../../../store/error-history.js";
import type { TaskStatus } from "../../../store/task-status.js";
import { toDate, toNullableDate } from "../clock.js";

/** Select list for a full task row; `alias` prefixes the columns (`t.`). */
export function taskColumns(alias?: string): string {
  const a = alias ? `${alias}.` : "";
  return [
    `${a}id AS id`,
    `${a}name AS name`,
    `${a}queue AS queue`,
    `CAST(${a}payload AS TEXT) AS payload`,
    `${a}status AS status`,
    `${a}priority AS priority`,
    `${a}run_at AS run_at`,
    `${a}attempts AS attempts`,
    `${a}max_attempts AS max_attempts`,
    `${a}lease_owner AS lease_owner`,
    `${a}lease_expires_at AS lease_expires_at`,
    `${a}last_error AS last_error`,
    `CAST(${a}result AS TEXT) AS result`,
    `${a}key AS key`,
    `${a}created_at AS created_at`,
    `${a}updated_at AS updated_at`,
    `${a}finished_at AS finished_at`,
    `${a}published_at AS published_at`,
    `${a}finished_by AS finished_by`,
    `${a}concurrency_key AS concurrency_key`,
    `${a}trace_context AS trace_context`,
    `${a}parent_id AS parent_id`,
    `CAST(${a}errors AS TEXT) AS errors`,
  ].join(", ");
}

/** A row selected with taskColumns(). */
export interface SqliteTaskRow {
  id: string;
  name: string;
  queue: string;
  payload: string;
  status: string;
  priority: number;
  run_at: unknown;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: unknown;
  last_error: string | null;
  result: string | null;
  key: string | null;
  created_at: unknown;
  updated_at: unknown;
  finished_at: unknown;
  published_at: unknown;
  finished_by: string | null;
  concurrency_key: string | null;
  trace_context: string | null;
  parent_id: string | null;
  errors: string | null;
}

/** JSON text as its value (SQL NULL stays null). */
function parseJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

export function toTaskRecord(row: SqliteTaskRow): TaskRecord {
  return {
    id: row.id,
    name: row.name,
    queue: row.queue,
    payload: parseJson(row.payload),
    status: row.status as TaskStatus,
    priority: Number(row.priority),
    runAt: toDate(row.run_at),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: toNullableDate(row.lease_expires_at),
    lastError: row.last_error,
    result: parseJson(row.result),
    key: row.key,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    finishedAt: toNullableDate(row.finished_at),
    publishedAt: toNullableDate(row.published_at),
    finishedBy: row.finished_by,
    concurrencyKey: row.concurrency_key ?? null,
    traceContext: row.trace_context ?? null,
    parentId: row.parent_id ?? null,
    errors: toErrorHistory(row.errors),
  };
}

/** The SQL of a list of values bound as one JSON array parameter: `(SELECT value FROM json_each(?))`. */
export function jsonList(param: string): string {
  return `(SELECT value FROM json_each(${param}))`;
}
