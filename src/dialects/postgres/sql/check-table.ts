// SQL unit: proves the task table is there and readable, and reads the server's version, in one round trip. A
// missing table or schema fails at parse time (42P01, 3F000), a missing privilege when it runs (42501), a table without
// the columns a claim reads that migrations added (trace_context, parent_id) at parse time too (42703).

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/** The server's version, once the table is known to be there; throws the driver's error otherwise. */
export async function checkTable(db: Db, table: PgTable): Promise<{ versionNum: number; version: string; banner: string }> {
  const rows = await db.query<{ versionNum: number; version: string; banner: string }>(
    `SELECT current_setting('server_version_num')::int AS "versionNum", current_setting('server_version') AS version,
            version() AS banner, (SELECT 1 FROM ${table.sql} LIMIT 0) AS probe,
            (SELECT trace_context FROM ${table.sql} LIMIT 0) AS "hasTraceContext", (SELECT parent_id FROM ${table.sql} LIMIT 0) AS "hasParentId"`,
    [],
  );
  return rows[0]!;
}
