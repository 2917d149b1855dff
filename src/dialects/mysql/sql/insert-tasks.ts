// SQL units of enqueue: insert a batch of tasks from one JSON parameter (JSON_TABLE), skipping keys that already exist
// (INSERT IGNORE), then read back what each input became. MySQL has no INSERT … RETURNING, so the insert says nothing
// about its rows; the read-back by id (own rows are visible in the inserting transaction) and by key tells.

import type { InsertedTask, PreparedTask } from "../../../store/enqueue-rows.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { flag, fromTimeText, NOW, placeholders, timeText, toTimeText } from "./values.js";
import { TaskQueueInternalError } from "../../../errors.js";

/** Ids (or keys) per read-back statement: well under the 65,535 placeholders of a prepared statement. */
const READ_CHUNK = 5000;

/**
 * The insert. Its first parameter is the publish flag (mark due tasks published now, as PostgreSQL's insert does), its
 * second the JSON array of insertTasksParam. `keyed`: some task has a dedupe key, so the insert is INSERT IGNORE: a row
 * whose key exists is skipped, holding only a shared lock on that key's index entry until the caller's transaction
 * ends (ON DUPLICATE KEY UPDATE would lock the existing task's row exclusively, stalling its worker). IGNORE also turns
 * other errors into warnings, so it is used only when needed, and the rows are checked before (see insertTasksParam).
 * run_at, created_at and published_at come from one UTC_TIMESTAMP(6) (constant within a statement), so "due at the
 * insert" is exactly run_at <= created_at afterwards.
 */
export function insertTasksSql(table: MysqlTable, keyed: boolean, concurrencyKeys = false, traced = false): string {
  // The concurrency_key column only when a task has one, so an app that declares no key enqueues on a table without it;
  // trace_context likewise only when a task carries a trace context.
  const ck = (concurrencyKeys ? ", concurrency_key" : "") + (traced ? ", trace_context" : "");
  const values = (concurrencyKeys ? ", r.concurrency_key" : "") + (traced ? ", r.trace_context" : "");
  return `INSERT ${keyed ? "IGNORE " : ""}INTO ${table.sql}
  (id, name, queue, payload, priority, run_at, max_attempts, \`key\`, published_at, created_at, updated_at${ck})
SELECT r.id, r.name, r.queue, COALESCE(r.payload, 'null'), r.priority, r.due_at, r.max_attempts, r.\`key\`,
       CASE WHEN ? AND r.due_at <= ${NOW} THEN ${NOW} END, ${NOW}, ${NOW}${values}
FROM (
  SELECT j.*, COALESCE(CAST(j.run_at_text AS DATETIME(6)), ${NOW} + INTERVAL j.delay_ms * 1000 MICROSECOND) AS due_at
  FROM JSON_TABLE(?, '$[*]' COLUMNS (
    i INT PATH '$.i', id VARCHAR(36) PATH '$.id', name VARCHAR(200) PATH '$.name', queue VARCHAR(100) PATH '$.queue',
    payload JSON PATH '$.payload', priority INT PATH '$.priority', delay_ms BIGINT PATH '$.delay_ms',
    run_at_text VARCHAR(32) PATH '$.run_at', max_attempts INT PATH '$.max_attempts', \`key\` VARCHAR(512) PATH '$.key',
    concurrency_key VARCHAR(200) PATH '$.concurrency_key'${traced ? ", trace_context TEXT PATH '$.trace_context'" : ""}
  )) AS j
) AS r
ORDER BY r.i`;
}

/** The JSON parameter of insertTasksSql, each payload spliced in as already-serialised JSON; runAt as UTC text. */
export function insertTasksParam(rows: readonly PreparedTask[]): string {
  const parts = rows.map((row, i) => {
    checkFits(row);
    return (
      `{"i":${i},"id":"${row.id}","name":${JSON.stringify(row.name)},"queue":${JSON.stringify(row.queue)},` +
      `"payload":${row.json},"priority":${row.priority},"delay_ms":${row.delayMs},` +
      `"run_at":${row.runAt ? `"${toTimeText(row.runAt)}"` : "null"},"max_attempts":${row.maxAttempts},` +
      `"key":${row.key === null ? "null" : JSON.stringify(row.key)},"concurrency_key":${row.concurrencyKey == null ? "null" : JSON.stringify(row.concurrencyKey)}` +
      `${row.traceContext == null ? "" : `,"trace_context":${JSON.stringify(row.traceContext)}`}}`
    );
  });
  return `[${parts.join(",")}]`;
}

/**
 * Refuses what the columns would cut short: under INSERT IGNORE MySQL truncates with a warning instead of failing.
 * Enqueue's own checks keep names, queues and keys within these bounds; this makes the limit explicit here.
 */
function checkFits(row: PreparedTask): void {
  for (const [field, value, max] of [
    ["name", row.name, 200],
    ["queue", row.queue, 100],
    ["key", row.key, 512],
  ] as const) {
    if (value !== null && [...value].length > max) {
      throw new RangeError(`task ${row.id}: its ${field} is ${[...value].length} characters, over the MySQL column's ${max}; shorten it`);
    }
  }
}

/**
 * One InsertedTask per input, in input order: found by its own id, it was created (status pending; due when run_at
 * was not after the insert's clock); not found, its key matched an existing task (or a twin earlier in the same batch),
 * so `id` is null and EnqueueStore.tasksByKeys finds that task. A keyless input that is missing is an error.
 */
export async function readInserted(db: CountingDb, table: MysqlTable, rows: readonly PreparedTask[]): Promise<InsertedTask[]> {
  const found = new Map<string, { run_at: string; due: unknown; left_us: unknown; asked: number }>();
  for (let start = 0; start < rows.length; start += READ_CHUNK) {
    const ids = rows.slice(start, start + READ_CHUNK).map((row) => row.id);
    // The time left until each task is due, by the database clock at this statement's start, which is a moment this
    // process knows within one small statement's way: the insert's own start lags its sending by the whole batch.
    const asked = performance.now();
    const part = await db.query<{ id: string; run_at: string; due: unknown; left_us: unknown }>(
      `SELECT id, ${timeText("run_at")} AS run_at, run_at <= created_at AS due, TIMESTAMPDIFF(MICROSECOND, ${NOW}, run_at) AS left_us
       FROM ${table.sql} WHERE id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const row of part) found.set(row.id.toLowerCase(), { ...row, asked });
  }
  return rows.map((task, i): InsertedTask => {
    const row = found.get(task.id.toLowerCase());
    if (row) {
      return {
        i,
        id: task.id,
        name: task.name,
        queue: task.queue,
        status: "pending",
        key: task.key,
        runAtMs: fromTimeText(row.run_at).getTime(),
        created: true,
        due: flag(row.due),
        ...(!flag(row.due) && { dueAt: row.asked + Math.max(0, Number(row.left_us)) / 1000 }),
      };
    }
    if (task.key === null) throw new TaskQueueInternalError(`the insert wrote no row for task ${task.id} (${task.name}), which has no key`);
    return { i, id: null, name: null, queue: null, status: null, key: task.key, runAtMs: null, created: false, due: false };
  });
}

interface KeyRow {
  id: string;
  name: string;
  queue: string;
  status: string;
  key: string;
  run_at: string;
}

/**
 * Tasks by key, for inputs whose key an existing task holds. A plain read first; keys it misses were committed by
 * another transaction after this transaction's snapshot (REPEATABLE READ, the app's default), which only a locking
 * read (the latest committed row) sees: LOCK IN SHARE MODE, on those rows only, until the caller's transaction ends.
 */
export async function selectTasksByKeys(db: CountingDb, table: MysqlTable, keys: readonly string[]): Promise<InsertedTask[]> {
  const unique = [...new Set(keys)];
  const found = new Map<string, KeyRow>();
  const select = `SELECT id, name, queue, status, \`key\`, ${timeText("run_at")} AS run_at FROM ${table.sql}`;
  for (const locking of [false, true]) {
    const missing = unique.filter((key) => !found.has(key));
    for (let start = 0; start < missing.length; start += READ_CHUNK) {
      const chunk = missing.slice(start, start + READ_CHUNK);
      const rows = await db.query<KeyRow>(`${select} WHERE \`key\` IN (${placeholders(chunk.length)})${locking ? " LOCK IN SHARE MODE" : ""}`, chunk);
      for (const row of rows) found.set(matchKey(chunk, row.key), row);
    }
  }
  return [...found].map(([key, row]) => ({
    i: 0,
    id: row.id,
    name: row.name,
    queue: row.queue,
    status: row.status,
    key,
    runAtMs: fromTimeText(row.run_at).getTime(),
    created: false,
    due: false,
  }));
}

/**
 * The input key a row answers: the same, or the one the column's PAD SPACE collation found equal (they differ in
 * trailing spaces only); the task is reported under the key it was asked for.
 */
function matchKey(asked: readonly string[], key: string): string {
  return asked.includes(key) ? key : (asked.find((candidate) => candidate.trimEnd() === key.trimEnd()) ?? key);
}
