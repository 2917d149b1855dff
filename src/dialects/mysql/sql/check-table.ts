// SQL unit: proves the task table is there and readable, and reads the server's version, in one round trip. A missing
// table fails when the statement is prepared (1146), a missing privilege likewise (1142), a table without the newest
// columns a claim reads that migrations added (trace_context, parent_id) likewise (1054).

import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";

/** The server's VERSION(), once the table is known to be there; throws the driver's error otherwise. */
export async function checkTable(db: CountingDb, table: MysqlTable): Promise<string> {
  const rows = await db.query<{ version: string }>(
    `SELECT VERSION() AS version, (SELECT 1 FROM ${table.sql} LIMIT 0) AS probe, (SELECT trace_context FROM ${table.sql} LIMIT 0) AS has_trace_context,
            (SELECT parent_id FROM ${table.sql} LIMIT 0) AS has_parent_id`,
    [],
  );
  return String(rows[0]!.version);
}
