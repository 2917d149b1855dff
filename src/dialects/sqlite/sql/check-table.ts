// SQL unit: proves the task and leader tables are there, the SQLite library is recent enough for the dialect's SQL
// (RETURNING, UPDATE … FROM, ->>), and no task row carries times in another format than the ISO 8601 text the SQL
// compares (rows written through a Prisma adapter set to timestampFormat "unixepoch-ms" would).

import type { StoreProblem } from "../../../store/store-problem.js";
import type { Db } from "../../../store/db.js";
import type { SqliteTable } from "../table.js";

/** The oldest SQLite whose SQL the dialect uses: 3.38 added ->> (RETURNING came in 3.35, UPDATE … FROM in 3.33). */
const MIN_VERSION = [3, 38, 0];

/** A problem the table shows, or undefined; throws the driver's error when a table is missing. */
export async function checkTables(db: Db, table: SqliteTable): Promise<StoreProblem | undefined> {
  const [{ version }] = (await db.query<{ version: string }>(`SELECT sqlite_version() AS version`, [])) as [{ version: string }];
  const parts = version.split(".").map(Number);
  const old = MIN_VERSION.findIndex((min, i) => (parts[i] ?? 0) !== min);
  if (old >= 0 && (parts[old] ?? 0) < MIN_VERSION[old]!) {
    return {
      kind: "server-too-old",
      lasting: true,
      message: `SQLite ${version} is too old`,
      detail: `prisma-task-queue needs SQLite 3.38 or later (found ${version}); update better-sqlite3, which bundles SQLite`,
    };
  }
  await db.query(`SELECT 1 FROM ${table.leaders} LIMIT 0`, []);
  const odd = await db.query<{ id: string; column: string; value: unknown; type: string }>(
    `SELECT id, 'run_at' AS "column", run_at AS value, typeof(run_at) AS type FROM ${table.sql}
     WHERE typeof(run_at) <> 'text' OR length(run_at) <> 29 OR substr(run_at, 24) <> '+00:00'
     LIMIT 1`,
    [],
  );
  // The columns a claim reads that migrations added: "no such column" when one was not applied.
  await db.query(`SELECT trace_context, parent_id FROM ${table.sql} LIMIT 0`, []);
  const row = odd[0];
  if (!row) return undefined;
  return {
    kind: "incompatible",
    lasting: true,
    message: `task ${row.id} has ${row.column} ${JSON.stringify(row.value)} (${row.type}), not ISO 8601 text such as "2026-11-23T09:30:00.000+00:00"`,
    detail:
      `the queue's SQL compares times as ISO 8601 text, the default format of @prisma/adapter-better-sqlite3. Create the adapter ` +
      `with timestampFormat "iso8601" (or leave the option out), and rewrite or delete the rows written in another format`,
  };
}
