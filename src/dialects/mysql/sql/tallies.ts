// SQL unit: the scaling signal's tallies, written in the transaction of the write they count (a success, a deletion on
// success, a prune). Rows are keyed by writer first: a worker's upsert locks only its own rows and the gaps among them,
// so workers never wait for one another here.

import type { CountingDb } from "../../../store/db.js";
import { TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS } from "../../../store/tallies.js";
import type { MysqlTable } from "../table.js";
import { num } from "./values.js";

/** A DATETIME column (UTC) as Unix seconds, whatever the session's time zone. */
export function unixSeconds(column: string): string {
  return `TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', ${column})`;
}

/** The slot of a Unix-seconds expression: down to a multiple of the slot length. */
export function slotOf(seconds: string): string {
  return `(FLOOR((${seconds}) / ${TALLY_SLOT_SECONDS}) * ${TALLY_SLOT_SECONDS})`;
}

/** The current slot on the database's clock. */
export const NOW_SLOT = slotOf("UNIX_TIMESTAMP()");

/** Columns a locking read adds for addTallies' `deleted`: the slot of created_at, and whether it is within the tallies' span. */
export const CREATED_SLOT_COLUMNS = `${slotOf(unixSeconds("created_at"))} AS created_slot, created_at >= UTC_TIMESTAMP() - INTERVAL ${TALLY_KEEP_SECONDS} SECOND AS recent`;

/** What one write tallies. */
export interface TallyRows {
  /** Tasks that succeeded now, with the handler's run time when known. */
  succeeded?: ReadonlyArray<{ queue: string; runMs?: number | undefined }>;
  /** Tasks whose rows are gone, read with CREATED_SLOT_COLUMNS. */
  deleted?: ReadonlyArray<{ queue: string; created_slot: unknown; recent: unknown }>;
}

/** Adds `rows` to `writer`'s tally rows, in the caller's transaction. */
export async function addTallies(tx: CountingDb, table: MysqlTable, writer: string, rows: TallyRows): Promise<void> {
  const tuples: string[] = [];
  const values: unknown[] = [];
  const byQueue = new Map<string, { succeeded: number; timed: number; runMs: number }>();
  for (const row of rows.succeeded ?? []) {
    const sum = byQueue.get(row.queue) ?? { succeeded: 0, timed: 0, runMs: 0 };
    sum.succeeded += 1;
    if (row.runMs !== undefined && Number.isFinite(row.runMs)) {
      sum.timed += 1;
      sum.runMs += Math.max(0, Math.round(row.runMs));
    }
    byQueue.set(row.queue, sum);
  }
  for (const [queue, sum] of byQueue) {
    tuples.push(`(?, ${NOW_SLOT}, ?, ?, ?, ?, 0)`);
    values.push(writer, queue, sum.succeeded, sum.timed, sum.runMs);
  }
  const deleted = new Map<string, { slot: number; queue: string; count: number }>();
  for (const row of rows.deleted ?? []) {
    if (!num(row.recent)) continue;
    const slot = num(row.created_slot);
    const key = `${slot}\u0000${row.queue}`;
    const entry = deleted.get(key) ?? { slot, queue: row.queue, count: 0 };
    entry.count += 1;
    deleted.set(key, entry);
  }
  for (const entry of deleted.values()) {
    tuples.push(`(?, ?, ?, 0, 0, 0, ?)`);
    values.push(writer, entry.slot, entry.queue, entry.count);
  }
  if (tuples.length === 0) return;
  await tx.write(
    `INSERT INTO ${table.tallies} (writer, slot, queue, succeeded, timed, run_ms, deleted) VALUES ${tuples.join(", ")}
     ON DUPLICATE KEY UPDATE succeeded = succeeded + VALUES(succeeded), timed = timed + VALUES(timed), run_ms = run_ms + VALUES(run_ms),
       deleted = deleted + VALUES(deleted)`,
    values,
  );
}

/** Deletes the tally rows past the tallies' span (the mark of when tallying began with them). */
export async function pruneTallies(tx: CountingDb, table: MysqlTable): Promise<void> {
  await tx.write(`DELETE FROM ${table.tallies} WHERE slot < ${NOW_SLOT} - ${TALLY_KEEP_SECONDS}`, []);
}
