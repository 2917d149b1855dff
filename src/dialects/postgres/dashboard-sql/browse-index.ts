// SQL unit: does the task table have the browse index (queue, name, status, id) that the dashboard's list and
// counts walk with index skip-scans? Without it they fall back to plain scans, correct but slow on large tables.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";

/** The statement that creates the browse index, for the migration (and the warning that suggests it). */
export function browseIndexSql(table: PgTable): string {
  const indexName = `"${table.name}_browse_idx"`;
  return `CREATE INDEX ${indexName} ON ${table.sql} ("queue", "name", "status", "id");`;
}

/** True when a valid btree index on the table starts with the columns queue, name, status, id (in that order). */
export async function hasBrowseIndex(db: Db, table: PgTable): Promise<boolean> {
  const rows = await db.query<{ found: boolean }>(
    `SELECT EXISTS (
       SELECT 1
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_am am ON am.oid = c.relam
       WHERE i.indrelid = to_regclass($1)
         AND i.indisvalid AND i.indpred IS NULL AND am.amname = 'btree'
         AND (SELECT array_agg(a.attname::text ORDER BY k.n)
              FROM unnest(i.indkey[0:3]) WITH ORDINALITY AS k(attnum, n)
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
             = ARRAY['queue', 'name', 'status', 'id']
     ) AS found`,
    [table.sql],
  );
  return rows[0]?.found === true;
}
