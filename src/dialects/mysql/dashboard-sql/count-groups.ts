// SQL unit: task counts per queue, name and status for the overview, bounded in cost on a large table.
// Exact up to a limit per group; a group past the limit is estimated by the optimizer's look into the browse index.

import { TASK_STATUSES } from "../../../store/task-status.js";
import type { GroupCount, TaskGroup } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { countTasks } from "../sql/queue-stats.js";
import { num } from "../sql/values.js";

/** Pairs per statement: 20 pairs of 5 statuses make 100 capped counts in one UNION ALL. */
const PAIRS_PER_STATEMENT = 20;

interface CountGroupsOptions {
  /** The pairs from listTaskGroups (browse index present), or undefined to count everything exactly with one scan. */
  groups: readonly TaskGroup[] | undefined;
  /** Groups up to this size are counted exactly; larger ones are estimated. */
  exactLimit: number;
  /**
   * Unused here: PostgreSQL estimates from a block sample of this many rows; MySQL has no TABLESAMPLE, and the
   * optimizer's row estimate for the group's index range (EXPLAIN, from index dives) serves instead.
   */
  sampleRows?: number;
}

interface Slot {
  queue: string;
  name: string;
  status: string;
}

/** Counts by queue, name and status: exact up to `exactLimit` per group when the groups are given, else exact. */
export async function countGroups(db: CountingDb, table: MysqlTable, options: CountGroupsOptions): Promise<GroupCount[]> {
  const { groups } = options;
  if (!groups) return (await countTasks(db, table)).map((row) => ({ ...row, estimated: false }));
  const chunks: TaskGroup[][] = [];
  for (let start = 0; start < groups.length; start += PAIRS_PER_STATEMENT) chunks.push(groups.slice(start, start + PAIRS_PER_STATEMENT));
  const counted = (await Promise.all(chunks.map((chunk) => countChunk(db, table, chunk, options.exactLimit + 1)))).flat();
  return Promise.all(
    counted.map(async (row) => {
      if (row.count <= options.exactLimit) return { ...row, estimated: false };
      const rows = await estimatedRows(db, table, row);
      // An estimate is good to a few percent at best: three significant digits say so.
      return { ...row, count: Math.max(row.count, Number(rows.toPrecision(3))), estimated: true };
    }),
  );
}

/** Capped counts of every status of `groups`, the non-empty ones in queue, name, status order. */
async function countChunk(db: CountingDb, table: MysqlTable, groups: readonly TaskGroup[], cap: number) {
  const slots: Slot[] = groups.flatMap((group) => TASK_STATUSES.map((status) => ({ queue: group.queue, name: group.name, status })));
  const values: unknown[] = [];
  const parts = slots.map((slot, k) => {
    values.push(slot.queue, slot.name, slot.status, cap);
    return `SELECT ${k} AS k, COUNT(*) AS n FROM (SELECT 1 FROM ${table.sql} WHERE queue = ? AND name = ? AND status = ? LIMIT ?) AS c${k}`;
  });
  const rows = await db.query<{ k: unknown; n: unknown }>(parts.join("\nUNION ALL\n"), values);
  return rows
    .map((row) => ({ ...slots[num(row.k)]!, count: num(row.n) }))
    .filter((row) => row.count > 0)
    .sort((a, b) => compare(a.queue, b.queue) || compare(a.name, b.name) || compare(a.status, b.status));
}

/** The optimizer's row estimate for one (queue, name, status): index dives into the browse index's range. */
async function estimatedRows(db: CountingDb, table: MysqlTable, slot: Slot): Promise<number> {
  const rows = await db.query<{ rows: unknown }>(`EXPLAIN SELECT 1 FROM ${table.sql} WHERE queue = ? AND name = ? AND status = ?`, [slot.queue, slot.name, slot.status]);
  return num(rows[0]?.rows);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
