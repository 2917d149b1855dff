// Per-row values in one UPDATE: `CASE id WHEN ? THEN … END`, with its parameters appended in order. MySQL has no
// UPDATE … FROM (VALUES …); a CASE keeps one statement for a whole batch whatever each row gets.

/** One row's value: SQL for it (with its own placeholders) and those placeholders' values. */
interface RowValue {
  id: string;
  sql: string;
  values?: readonly unknown[];
}

/** `CASE id WHEN ? THEN <sql> … ELSE <otherwise> END`; pushes each row's id and values onto `params`. */
export function caseById(rows: readonly RowValue[], otherwise: string, params: unknown[]): string {
  if (rows.length === 0) return otherwise;
  const arms = rows.map((row) => {
    params.push(row.id, ...(row.values ?? []));
    return `WHEN ? THEN ${row.sql}`;
  });
  return `CASE id ${arms.join(" ")} ELSE ${otherwise} END`;
}
