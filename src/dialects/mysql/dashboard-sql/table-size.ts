// SQL unit: how many tasks the table holds, counted up to a limit, so the cost stays bounded on a large table. The
// dashboard asks it to learn whether the table is large enough for the missing browse index to matter.

import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";

/** The number of rows in the task table, or `limit` when it holds at least that many (reads at most `limit` rows). */
export async function countTasksUpTo(db: CountingDb, table: MysqlTable, limit: number): Promise<number> {
  const rows = await db.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${table.sql} LIMIT ?) AS sized`, [limit]);
  return Number(rows[0]?.n ?? 0);
}
