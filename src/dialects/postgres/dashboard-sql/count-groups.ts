// SQL unit: task counts per queue, name and status for the overview, bounded in cost on a large table.
// Exact up to a limit per group; a group past the limit is estimated from a block sample of the table.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { GroupCount, TaskGroup } from "../../../store/views.js";
import { TASK_STATUSES } from "../../../store/task-status.js";
import { countTasks } from "../sql/queue-stats.js";
import { groupsValues } from "./task-groups.js";

/** Pairs per statement: keeps each statement's plan cost well under PostgreSQL's default jit_above_cost. */
const PAIRS_PER_STATEMENT = 20;

interface CountGroupsOptions {
  /** The pairs from listTaskGroups (browse index present), or undefined to count everything exactly with one full scan. */
  groups: readonly TaskGroup[] | undefined;
  /** Groups up to this size are counted exactly; larger ones are estimated. */
  exactLimit: number;
  /** Rows the estimating sample aims at (default 10,000). */
  sampleRows?: number;
}

/** Counts by queue, name and status: exact up to `exactLimit` per group when the groups are given, else exact. */
export async function countGroups(db: Db, table: PgTable, options: CountGroupsOptions): Promise<GroupCount[]> {
  const { groups } = options;
  if (!groups) return (await countTasks(db, table)).map((row) => ({ ...row, estimated: false }));
  const chunks: TaskGroup[][] = [];
  for (let start = 0; start < groups.length; start += PAIRS_PER_STATEMENT) chunks.push(groups.slice(start, start + PAIRS_PER_STATEMENT));
  // The sample runs alongside the exact counts (it is cheap, and waiting to learn whether it is needed costs more).
  const [counted, estimates] = await Promise.all([
    Promise.all(chunks.map((chunk) => countChunk(db, table, chunk, options.exactLimit + 1))),
    groups.length > 0 ? sampleCounts(db, table, options.sampleRows ?? 10_000) : new Map<string, number>(),
  ]);
  const rows = counted.flat();
  return rows.map((row) => {
    if (row.count <= options.exactLimit) return { ...row, estimated: false };
    const estimate = estimates.get(`${row.queue}\u0000${row.name}\u0000${row.status}`) ?? 0;
    // A sample is good to about a percent: three significant digits say so.
    return { ...row, count: Math.max(row.count, Number(estimate.toPrecision(3))), estimated: true };
  });
}

async function countChunk(db: Db, table: PgTable, groups: TaskGroup[], cap: number) {
  const values: unknown[] = [TASK_STATUSES, cap];
  const pairs = groupsValues(groups, values);
  return db.query<{ queue: string; name: string; status: string; count: number }>(
    `SELECT g.queue, g.name, s.status, c.n::int AS count
     FROM ${pairs}
     CROSS JOIN unnest($1::text[]) AS s(status)
     CROSS JOIN LATERAL (
       SELECT count(*) AS n FROM (
         SELECT 1 FROM ${table.sql} WHERE queue = g.queue AND name = g.name AND status = s.status LIMIT $2
       ) AS capped
     ) AS c
     WHERE c.n > 0
     ORDER BY g.queue, g.name, s.status`,
    values,
  );
}

/** Group sizes scaled up from a SYSTEM (block) sample, sized from the planner's row estimate of the table. */
async function sampleCounts(db: Db, table: PgTable, sampleRows: number): Promise<Map<string, number>> {
  const rows = await db.query<{ queue: string; name: string; status: string; estimate: number }>(
    `WITH share AS (
       SELECT CASE WHEN reltuples > 0 THEN LEAST(100, GREATEST(0.01, 100.0 * $1 / reltuples)) ELSE 1 END::float8 AS pct
       FROM pg_class WHERE oid = to_regclass($2)
     )
     SELECT queue, name, status, (count(*) * 100.0 / (SELECT pct FROM share))::float8 AS estimate
     FROM ${table.sql} TABLESAMPLE SYSTEM ((SELECT pct FROM share))
     GROUP BY queue, name, status`,
    [sampleRows, table.sql],
  );
  return new Map(rows.map((row) => [`${row.queue}\u0000${row.name}\u0000${row.status}`, row.estimate]));
}
