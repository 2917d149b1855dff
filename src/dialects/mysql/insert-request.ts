// Enqueue's insert as the core needs it: one request, unsent until awaited through Prisma (so it joins a batch
// $transaction([...])), and a read that tells what each input became. The read is a second statement through the same
// client, run after the insert: inside the app's transaction when there is one, after the commit for a batch.

import type { InsertRequest, PreparedTask } from "../../store/enqueue-rows.js";
import type { CountingDb } from "../../store/db.js";
import { insertTasksParam, insertTasksSql, readInserted } from "./sql/insert-tasks.js";
import type { MysqlTable } from "./table.js";

/** The request that inserts `rows`; `publishes` marks due tasks published now (see insertTasksSql). */
export function insertRequest(db: CountingDb, table: MysqlTable, rows: readonly PreparedTask[], publishes: boolean): InsertRequest {
  const keyed = rows.some((row) => row.key !== null);
  return {
    request: db.request(
      insertTasksSql(
        table,
        keyed,
        rows.some((row) => row.concurrencyKey != null),
        rows.some((row) => row.traceContext != null),
      ),
      [publishes, insertTasksParam(rows)],
    ),
    read: () => readInserted(db, table, rows),
  };
}
