// Shared setup of the dashboard tests: rows inserted the way the queue leaves them (dead with an error, delayed,
// running with an expired lease…), the optional browse index, a recording logger, and Chromium through playwright-core.

import pg from "pg";
import { chromium, type Browser } from "playwright-core";
import { jsonLogger, silentLogger, type Logger } from "../../src/index.js";
import { uuidv7 } from "../../src/uuid.js";

export interface TaskRowInput {
  name: string;
  queue?: string;
  status?: "pending" | "running" | "succeeded" | "dead" | "cancelled";
  payload?: unknown;
  /** Seconds from now (negative: in the past). Default 0. */
  runInSeconds?: number;
  attempts?: number;
  maxAttempts?: number;
  lastError?: string | null;
  result?: unknown;
  key?: string | null;
  leaseOwner?: string | null;
  /** Seconds from now until the lease expires (negative: expired). */
  leaseInSeconds?: number;
  /** Seconds ago the task finished (finished statuses only). Default 1. */
  finishedSecondsAgo?: number;
  published?: boolean;
  id?: string;
}

/** Inserts one task row as the runner would have left it; returns its id. */
export async function insertTask(sql: pg.Pool, input: TaskRowInput): Promise<string> {
  const id = input.id ?? uuidv7();
  const status = input.status ?? "pending";
  const finished = status === "succeeded" || status === "dead" || status === "cancelled";
  await sql.query(
    `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, max_attempts, last_error, result, key,
                        lease_owner, lease_expires_at, finished_at, published_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, now() + $6 * interval '1 second', $7, $8, $9, $10::jsonb, $11,
             $12, CASE WHEN $13::float8 IS NULL THEN NULL ELSE now() + $13 * interval '1 second' END,
             CASE WHEN $14 THEN now() - $15 * interval '1 second' END, CASE WHEN $16 THEN now() END)`,
    [
      id,
      input.name,
      input.queue ?? "default",
      JSON.stringify(input.payload ?? {}),
      status,
      input.runInSeconds ?? 0,
      input.attempts ?? (status === "pending" ? 0 : 1),
      input.maxAttempts ?? 5,
      input.lastError ?? null,
      input.result === undefined ? null : JSON.stringify(input.result),
      input.key ?? null,
      input.leaseOwner ?? (status === "running" ? "test-worker:1:abc" : null),
      status === "running" ? (input.leaseInSeconds ?? 30) : null,
      finished,
      input.finishedSecondsAgo ?? 1,
      input.published ?? true,
    ],
  );
  return id;
}

/** Creates the browse index the dashboard proposes (idempotent: the migration may already have it). */
export async function createBrowseIndex(sql: pg.Pool): Promise<void> {
  await sql.query(`CREATE INDEX IF NOT EXISTS tasks_browse_idx ON tasks (queue, name, status, id)`);
}

/** Drops every index that hasBrowseIndex would accept, so a test runs the plain-scan path. */
export async function dropBrowseIndex(sql: pg.Pool): Promise<void> {
  const rows = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = 'tasks'::regclass AND (SELECT array_agg(a.attname::text ORDER BY k.n)
       FROM unnest(i.indkey[0:3]) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) = ARRAY['queue', 'name', 'status', 'id']`,
  );
  for (const row of rows.rows) await sql.query(`DROP INDEX "${row.name}"`);
}

export interface LoggedLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line (and echoes them with PTQ_DEBUG=1). */
export function recordingLogger(): Logger & { lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const echo = process.env.PTQ_DEBUG ? jsonLogger("debug") : silentLogger;
  const log =
    (level: keyof Logger) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      lines.push({ level, message, fields });
      echo[level](message, fields);
    };
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Debian's Chromium, headless, with the network chatter that this machine refuses turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** Where screenshots go: .artifacts/dashboard/ (gitignored). */
export const ARTIFACTS = new URL("../../.artifacts/dashboard/", import.meta.url);
