// SQL unit: how many tasks the table holds, counted up to a limit, so the cost stays bounded on a large table. The
// dashboard asks it to learn whether the table is large enough for the missing browse index to matter.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/** The number of rows in the task table, or `limit` when it holds at least that many (reads at most `limit` rows). */
export async function countTasksUpTo(db: Db, table: PgTable, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table.sql} LIMIT $1) AS sized`, [limit]);
  return rows[0]?.n ?? 0;
}
