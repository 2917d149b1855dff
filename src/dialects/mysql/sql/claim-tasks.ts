// SQL unit: claim tasks by id (ids that wake-ups named), in one transaction per batch: a locking read that skips rows
// another transaction holds, one UPDATE by primary key, COMMIT. Reports, for every id it could not claim, why: missing
// row, not pending, not due, not ours, or locked by someone.

import type { TaskRecord } from "../../../store/task-record.js";
import type { ClaimByIdResult, ClaimFilter, UnclaimedReason } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { lockedColumns, markClaimed, type LockedRow } from "./claim-lock.js";
import { flag, NOW, placeholders } from "./values.js";
import { HELD_BACK, PAUSED } from "./queue-controls.js";

/**
 * Claims the pending, due tasks among `ids` that the filter allows: status running, attempts + 1, lease set. Rows are
 * found by primary key only and their status is checked after the lock, so the read never ranges over an index it
 * would gap-lock; rows another transaction holds are skipped (reason "locked"), never waited for. Ids it did not claim
 * (rare) get their reason from the locked row, or from one plain read after the commit.
 */
export async function claimTasksByIds(db: CountingDb, table: MysqlTable, ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
  const unique = uniqueIds(ids);
  if (unique.length === 0) return [];
  const { claimed, locked } = await atomically(db, async (tx) => {
    const rows = await lockIds<{ paused: unknown; limited: unknown }>(tx, table, unique, filter, heldBackColumns(table, filter));
    const claimable = claimableRows(rows, filter).filter((row) => !flag(row.paused) && !flag(row.limited));
    return { claimed: await markClaimed(tx, table, claimable, filter), locked: rows };
  });
  return explainClaims(db, table, unique, claimed, locked, filter);
}

/** The select list's columns telling whether a row's queue is paused, or limited in the database (unless counted). */
function heldBackColumns(table: MysqlTable, filter: ClaimFilter): string {
  return `, ${PAUSED("t", table)} AS paused, ${filter.counted ? "0" : HELD_BACK("t", table, false)} AS limited`;
}

/** The ids once each; ids compare case-insensitively. */
export function uniqueIds(ids: readonly string[]): string[] {
  return [...new Map(ids.map((id) => [id.toLowerCase(), id])).values()];
}

/** A row of a claim's locking read, with whether it is due by the database clock. */
export type DueRow = LockedRow & { due: unknown };

/**
 * The locking read of a claim by ids, inside the caller's transaction: the rows among `unique` that no other
 * transaction holds, with the select list's `columns` added (placeholders in them are not allowed).
 */
export function lockIds<Extra extends object = object>(
  tx: CountingDb,
  table: MysqlTable,
  unique: readonly string[],
  filter: ClaimFilter,
  columns = "",
): Promise<(DueRow & Extra)[]> {
  return tx.query<DueRow & Extra>(
    `SELECT ${lockedColumns("t")}, t.run_at <= ${NOW} AS due${columns}
     FROM ${table.sql} t FORCE INDEX (PRIMARY)
     WHERE t.id IN (${placeholders(unique.length)})
     ORDER BY t.id
     FOR UPDATE SKIP LOCKED`,
    [Math.round(filter.leaseMs), ...unique],
  );
}

/** The locked rows the filter may claim: pending, due, of its names and queues. */
export function claimableRows<R extends DueRow>(rows: readonly R[], filter: ClaimFilter): R[] {
  const names = new Set(filter.names);
  const queues = new Set(filter.queues);
  return rows.filter((row) => row.status === "pending" && flag(row.due) && names.has(row.name) && queues.has(row.queue));
}

/**
 * One result per id of `unique`, in order: the claimed tasks, and for the others why, from the locked row or, for the
 * ids the locking read skipped or did not find, from one plain read.
 */
export async function explainClaims(
  db: CountingDb,
  table: MysqlTable,
  unique: readonly string[],
  claimed: readonly TaskRecord[],
  locked: readonly DueRow[],
  filter: ClaimFilter,
): Promise<ClaimByIdResult[]> {
  const names = new Set(filter.names);
  const queues = new Set(filter.queues);
  const byId = new Map(claimed.map((task) => [task.id.toLowerCase(), task]));
  const lockedById = new Map(locked.map((row) => [row.id.toLowerCase(), row]));
  const unseen = unique.filter((id) => !lockedById.has(id.toLowerCase()));
  const seen = unseen.length === 0 ? new Map<string, SeenRow>() : await seenRows(db, table, unseen, filter);
  return unique.map((id): ClaimByIdResult => {
    const key = id.toLowerCase();
    const task = byId.get(key);
    if (task) return { id, claimed: task };
    const row: SeenRow | undefined = lockedById.get(key) ?? seen.get(key);
    const unclaimed: ClaimByIdResult = { id, claimed: null, reason: reasonOf(row, names, queues) };
    if (row) Object.assign(unclaimed, { name: row.name, queue: row.queue });
    return unclaimed;
  });
}

interface SeenRow {
  id: string;
  name: string;
  queue: string;
  status: string;
  due: unknown;
  /** Absent where the claim knew the queue was not paused (it held the queue's lock). */
  paused?: unknown;
  /** Whether the queue is limited in the database (0 for a claim that counted); absent as `paused` is. */
  limited?: unknown;
}

/** The current state of ids the locking read skipped (held by another transaction) or did not find. */
async function seenRows(db: CountingDb, table: MysqlTable, ids: string[], filter: ClaimFilter): Promise<Map<string, SeenRow>> {
  const rows = await db.query<SeenRow>(
    `SELECT t.id, t.name, t.queue, t.status, t.run_at <= ${NOW} AS due${heldBackColumns(table, filter)} FROM ${table.sql} t WHERE t.id IN (${placeholders(ids.length)})`,
    ids,
  );
  return new Map(rows.map((row) => [row.id.toLowerCase(), row]));
}

function reasonOf(row: SeenRow | undefined, names: Set<string>, queues: Set<string>): UnclaimedReason {
  if (!row) return "missing";
  if (row.status !== "pending") return "not-pending";
  if (!flag(row.due)) return "not-due";
  if (!names.has(row.name) || !queues.has(row.queue)) return "not-ours";
  if (flag(row.paused)) return "paused";
  if (flag(row.limited)) return "limited"; // limited in the database: claimed only by a claim that counts
  return "locked"; // pending, due and ours, yet skipped: another transaction held its row
}
