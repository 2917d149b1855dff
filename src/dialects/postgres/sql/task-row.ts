// The task table's columns as every SQL unit selects them, and their mapping to the TaskRecord handlers see.

import type { TaskRecord } from "../../../store/task-record.js";
import { toErrorHistory } from "../../../store/error-history.js";
import type { TaskStatus } from "../../../store/task-status.js";

/** Select list for a full task row; splice after `SELECT` (prefix with an alias via taskColumns("t")). */
export function taskColumns(alias?: string): string {
  const a = alias ? `${alias}.` : "";
  return [
    `${a}id::text AS id`,
    `${a}name`,
    `${a}queue`,
    `${a}payload`,
    `${a}status`,
    `${a}priority`,
    `${a}run_at`,
    `${a}attempts`,
    `${a}max_attempts`,
    `${a}lease_owner`,
    `${a}lease_expires_at`,
    `${a}last_error`,
    `${a}result`,
    `${a}key`,
    `${a}created_at`,
    `${a}updated_at`,
    `${a}finished_at`,
    `${a}published_at`,
    `${a}finished_by`,
    `${a}concurrency_key`,
    `${a}trace_context`,
    `${a}parent_id::text AS parent_id`,
    `${a}errors`,
  ].join(", ");
}

/** A row selected with taskColumns(), as pg or Prisma raw returns it. */
export interface TaskRow {
  id: string;
  name: string;
  queue: string;
  payload: unknown;
  status: string;
  priority: number;
  run_at: Date | string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | string | null;
  last_error: string | null;
  result: unknown;
  key: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
  published_at: Date | string | null;
  finished_by: string | null;
  concurrency_key: string | null;
  trace_context: string | null;
  parent_id: string | null;
  errors: unknown;
}

export function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    name: row.name,
    queue: row.queue,
    payload: row.payload,
    status: row.status as TaskStatus,
    priority: row.priority,
    runAt: toDate(row.run_at),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: toNullableDate(row.lease_expires_at),
    lastError: row.last_error,
    result: row.result,
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

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

function toNullableDate(value: Date | string | null): Date | null {
  return value === null ? null : toDate(value);
}
