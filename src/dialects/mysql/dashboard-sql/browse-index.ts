// SQL unit: does the task table have the browse index (queue, name, status, id) that the dashboard's list and counts
// walk group by group? Without it they fall back to plain scans, correct but slow on large tables.

import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";

const BROWSE_COLUMNS = ["queue", "name", "status", "id"];

/** The statement that creates the browse index, for the migration (and the warning that suggests it). */
export function browseIndexSql(table: MysqlTable): string {
  return `CREATE INDEX \`${table.name}_queue_name_status_id_idx\` ON ${table.sql} (\`queue\`, \`name\`, \`status\`, \`id\`);`;
}

/** True when a B-tree index of the table starts with the whole columns queue, name, status, id (in that order). */
export async function hasBrowseIndex(db: CountingDb, table: MysqlTable): Promise<boolean> {
  const rows = await db.query<{ index_name: string; seq: unknown; column_name: string; sub_part: unknown }>(
    `SELECT INDEX_NAME AS index_name, SEQ_IN_INDEX AS seq, COLUMN_NAME AS column_name, SUB_PART AS sub_part
     FROM information_schema.STATISTICS
     WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND INDEX_TYPE = 'BTREE' AND SEQ_IN_INDEX <= 4
     ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    [table.schema ?? null, table.name],
  );
  const indexes = new Map<string, string[]>();
  for (const row of rows) {
    const columns = indexes.get(row.index_name) ?? [];
    columns[Number(row.seq) - 1] = row.sub_part === null ? row.column_name.toLowerCase() : `${row.column_name.toLowerCase()}(prefix)`;
    indexes.set(row.index_name, columns);
  }
  return [...indexes.values()].some((columns) => BROWSE_COLUMNS.every((column, i) => columns[i] === column));
}
