// The task table's columns as every SQL unit selects them (times as UTC text, JSON as text), and their mapping to the
// TaskRecord handlers see.

import type { TaskRecord } from "../../../store/task-record.js";
import { toErrorHistory } from "../../../store/error-history.js";
import type { TaskStatus } from "../../../store/task-status.js";
import { fromNullableTimeText, fromTimeText, jsonText, num, parseJson, timeText } from "./values.js";

/** Select list for a full task row; splice after `SELECT` (prefix with an alias via taskColumns("t")). */
export function taskColumns(alias?: string): string {
  const a = alias ? `${alias}.` : "";
  return [
    `${a}id`,
    `${a}name`,
    `${a}queue`,
    `${jsonText(`${a}payload`)} AS payload`,
    `${a}status`,
    `${a}priority`,
    `${timeText(`${a}run_at`)} AS run_at`,
    `${a}attempts`,
    `${a}max_attempts`,
    `${a}lease_owner`,
    `${timeText(`${a}lease_expires_at`)} AS lease_expires_at`,
    `${a}last_error`,
    `${jsonText(`${a}result`)} AS result`,
    `${a}\`key\``,
    `${timeText(`${a}created_at`)} AS created_at`,
    `${timeText(`${a}updated_at`)} AS updated_at`,
    `${timeText(`${a}finished_at`)} AS finished_at`,
    `${timeText(`${a}published_at`)} AS published_at`,
    `${a}finished_by`,
    `${a}concurrency_key`,
    `${a}trace_context`,
    `${a}parent_id`,
    `${jsonText(`${a}errors`)} AS errors`,
  ].join(", ");
}

/** A row selected with taskColumns(), as the pool or Prisma returns it. */
export interface TaskRow {
  id: string;
  name: string;
  queue: string;
  payload: string;
  status: string;
  priority: number | bigint;
  run_at: string;
  attempts: number | bigint;
  max_attempts: number | bigint;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  result: string | null;
  key: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  published_at: string | null;
  finished_by: string | null;
  concurrency_key: string | null;
  trace_context: string | null;
  parent_id: string | null;
  errors: string | null;
}

export function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    name: row.name,
    queue: row.queue,
    payload: parseJson(row.payload),
    status: row.status as TaskStatus,
    priority: num(row.priority),
    runAt: fromTimeText(row.run_at),
    attempts: num(row.attempts),
    maxAttempts: num(row.max_attempts),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: fromNullableTimeText(row.lease_expires_at),
    lastError: row.last_error,
    result: parseJson(row.result),
    key: row.key,
    createdAt: fromTimeText(row.created_at),
    updatedAt: fromTimeText(row.updated_at),
    finishedAt: fromNullableTimeText(row.finished_at),
    publishedAt: fromNullableTimeText(row.published_at),
    finishedBy: row.finished_by,
    concurrencyKey: row.concurrency_key ?? null,
    traceContext: row.trace_context ?? null,
    parentId: row.parent_id ?? null,
    errors: toErrorHistory(row.errors),
  };
}
