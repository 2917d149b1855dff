// Writes task rows straight into the table, in the states a crash or a lost message leaves behind, with times
// relative to the database clock.

import { randomUUID } from "node:crypto";
import type pg from "pg";

export interface RowSpec {
  name?: string;
  queue?: string;
  payload?: unknown;
  status?: "pending" | "running" | "succeeded" | "dead" | "cancelled";
  attempts?: number;
  maxAttempts?: number;
  /** created_at = now() - this. Default 0. */
  createdAgoMs?: number;
  /** run_at = now() - this (negative: in the future). Default: createdAgoMs. */
  runAgoMs?: number;
  /** published_at = now() - this; null (default) = never published. */
  publishedAgoMs?: number | null;
  /** For running rows: lease_expires_at = now() - this (negative: still valid). */
  leaseExpiredAgoMs?: number;
  /** For finished rows: finished_at = now() - this. */
  finishedAgoMs?: number;
}

/** The values of one spec's row, defaults filled in (times as milliseconds before the database clock's now). */
export function rowValues(spec: RowSpec) {
  const id = randomUUID();
  const created = spec.createdAgoMs ?? 0;
  const running = spec.status === "running";
  return {
    id,
    name: spec.name ?? "send-report",
    queue: spec.queue ?? "default",
    payload: JSON.stringify(spec.payload ?? { reportId: id }),
    status: spec.status ?? "pending",
    attempts: spec.attempts ?? (running ? 1 : 0),
    maxAttempts: spec.maxAttempts ?? 5,
    createdAgoMs: created,
    runAgoMs: spec.runAgoMs ?? created,
    publishedAgoMs: spec.publishedAgoMs ?? null,
    running,
    leaseExpiredAgoMs: spec.leaseExpiredAgoMs ?? 1000,
    finished: spec.status === "succeeded" || spec.status === "dead" || spec.status === "cancelled",
    finishedAgoMs: spec.finishedAgoMs ?? 0,
  };
}

/** Inserts one row per spec and returns their ids in order. */
export async function insertRows(sql: pg.Pool, specs: RowSpec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const spec of specs) {
    const v = rowValues(spec);
    await sql.query(
      `INSERT INTO tasks (id, name, queue, payload, status, attempts, max_attempts, created_at, run_at, published_at,
                          lease_owner, lease_expires_at, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7,
               now() - $8 * interval '1 ms', now() - $9 * interval '1 ms',
               CASE WHEN $10::float8 IS NULL THEN NULL ELSE now() - $10 * interval '1 ms' END,
               CASE WHEN $11 THEN 'vanished-worker:1' END,
               CASE WHEN $11 THEN now() - $12 * interval '1 ms' END,
               CASE WHEN $13 THEN now() - $14 * interval '1 ms' END)`,
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

/** A task row as pg returns it: times as Dates, JSON columns parsed. */
export interface TaskRowRecord {
  id: string;
  name: string;
  queue: string;
  payload: unknown;
  status: string;
  priority: number;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  result: unknown;
  key: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  published_at: Date | null;
  [column: string]: unknown;
}

export async function rowOf(sql: pg.Pool, id: string): Promise<TaskRowRecord | undefined> {
  return (await sql.query<TaskRowRecord>("SELECT *, id::text AS id FROM tasks WHERE id = $1", [id])).rows[0];
}
