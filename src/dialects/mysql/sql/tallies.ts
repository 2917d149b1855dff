// SQL units: the scaling signal's tallies: a deletion's arrivals (a deletion on success, a prune) in the deletion's
// transaction, and the successes a worker counted in a statement of their own. Rows are keyed by writer first: a worker's upsert locks only its own rows and the gaps among them,
// so workers never wait for one another here.

import type { CountingDb } from "../../../store/db.js";
import { mergeTallies, TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS, type SuccessTally } from "../../../store/tallies.js";
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

/** Rows gone (read with CREATED_SLOT_COLUMNS), added to `writer`'s tally rows in the caller's transaction, each in the slot of its created_at when within the tallies' span. */
export async function addDeletedTallies(
  tx: CountingDb,
  table: MysqlTable,
  writer: string,
  deleted: ReadonlyArray<{ queue: string; created_slot: unknown; recent: unknown }>,
): Promise<void> {
  const counts = new Map<string, { slot: number; queue: string; count: number }>();
  for (const row of deleted) {
    if (!num(row.recent)) continue;
    const slot = num(row.created_slot);
    const key = `${slot}\u0000${row.queue}`;
    const entry = counts.get(key) ?? { slot, queue: row.queue, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  if (counts.size === 0) return;
  const entries = [...counts.values()];
  await tx.write(
    `INSERT INTO ${table.tallies} (writer, slot, queue, succeeded, timed, run_ms, deleted) VALUES ${entries.map(() => "(?, ?, ?, 0, 0, 0, ?)").join(", ")}
     ON DUPLICATE KEY UPDATE deleted = deleted + VALUES(deleted)`,
    entries.flatMap((entry) => [writer, entry.slot, entry.queue, entry.count]),
  );
}

/** Adds the successes a worker counted, per queue, to its tally rows of the current slot. */
export async function addSuccessTallies(db: CountingDb, table: MysqlTable, writer: string, tallies: readonly SuccessTally[]): Promise<void> {
  const merged = mergeTallies(tallies);
  if (merged.length === 0) return;
  await db.write(
    `INSERT INTO ${table.tallies} (writer, slot, queue, succeeded, timed, run_ms, deleted) VALUES ${merged.map(() => `(?, ${NOW_SLOT}, ?, ?, ?, ?, 0)`).join(", ")}
     ON DUPLICATE KEY UPDATE succeeded = succeeded + VALUES(succeeded), timed = timed + VALUES(timed), run_ms = run_ms + VALUES(run_ms)`,
    merged.flatMap((m) => [writer, m.queue, m.succeeded, m.timed, m.runMs]),
  );
}

/** Deletes the tally rows past the tallies' span (the mark of when tallying began with them). */
export async function pruneTallies(tx: CountingDb, table: MysqlTable): Promise<void> {
  await tx.write(`DELETE FROM ${table.tallies} WHERE slot < ${NOW_SLOT} - ${TALLY_KEEP_SECONDS}`, []);
}
