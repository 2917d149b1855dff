// SQL unit: claim tasks by id (ids that wake-ups named), in one transaction per batch: a locking read that skips rows
// another transaction holds, one UPDATE by primary key, COMMIT. Reports, for every id it could not claim, why: missing
// row, not pending, not due, not ours, or locked by someone.

import type { ClaimByIdResult, ClaimFilter, UnclaimedReason } from "../../../store/task-writes.js";
import { atomically, type CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { lockedColumns, markClaimed, type LockedRow } from "./claim-lock.js";
import { flag, NOW, placeholders } from "./values.js";
import { PAUSED } from "./queue-controls.js";

/**
 * Claims the pending, due tasks among `ids` that the filter allows: status running, attempts + 1, lease set. Rows are
 * found by primary key only and their status is checked after the lock, so the read never ranges over an index it
 * would gap-lock; rows another transaction holds are skipped (reason "locked"), never waited for. Ids it did not claim
 * (rare) get their reason from the locked row, or from one plain read after the commit.
 */
export async function claimTasksByIds(db: CountingDb, table: MysqlTable, ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
  const unique = [...new Map(ids.map((id) => [id.toLowerCase(), id])).values()]; // ids compare case-insensitively
  if (unique.length === 0) return [];
  const names = new Set(filter.names);
  const queues = new Set(filter.queues);
  const { claimed, locked } = await atomically(db, async (tx) => {
    const rows = await tx.query<LockedRow & { due: unknown; paused: unknown }>(
      `SELECT ${lockedColumns("t")}, t.run_at <= ${NOW} AS due, ${PAUSED("t", table)} AS paused
       FROM ${table.sql} t FORCE INDEX (PRIMARY)
       WHERE t.id IN (${placeholders(unique.length)})
       ORDER BY t.id
       FOR UPDATE SKIP LOCKED`,
      [Math.round(filter.leaseMs), ...unique],
    );
    const claimable = rows.filter((row) => row.status === "pending" && flag(row.due) && !flag(row.paused) && names.has(row.name) && queues.has(row.queue));
    return { claimed: await markClaimed(tx, table, claimable, filter), locked: rows };
  });
  const byId = new Map(claimed.map((task) => [task.id.toLowerCase(), task]));
  const lockedById = new Map(locked.map((row) => [row.id.toLowerCase(), row]));
  const unseen = unique.filter((id) => !lockedById.has(id.toLowerCase()));
  const seen = unseen.length === 0 ? new Map<string, SeenRow>() : await seenRows(db, table, unseen);
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
  paused: unknown;
}

/** The current state of ids the locking read skipped (held by another transaction) or did not find. */
async function seenRows(db: CountingDb, table: MysqlTable, ids: string[]): Promise<Map<string, SeenRow>> {
  const rows = await db.query<SeenRow>(
    `SELECT t.id, t.name, t.queue, t.status, t.run_at <= ${NOW} AS due, ${PAUSED("t", table)} AS paused FROM ${table.sql} t WHERE t.id IN (${placeholders(ids.length)})`,
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
  return "locked"; // pending, due and ours, yet skipped: another transaction held its row
}
