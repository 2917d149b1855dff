// Picks the insert statement for a batch of prepared tasks (a keyless one when no task has a key), sends it as one
// request through the Db (unsent until awaited, through Prisma), and reads its rows back as one InsertedTask per
// task, in input order, whichever statement ran.

import type { InsertRequest, InsertedTask, PreparedTask } from "../../store/enqueue-rows.js";
import type { Db } from "../../store/db.js";
import {
  insertKeylessTasksParams,
  insertKeylessTasksSql,
  insertOneKeylessTaskParams,
  insertOneKeylessTaskSql,
  isTraced,
  oneTraceContext,
  type KeylessInsertRow,
} from "./sql/insert-keyless-tasks.js";
import { insertTasksParam, insertTasksSql } from "./sql/insert-tasks.js";
import type { PgTable } from "./table.js";
import { TaskQueueInternalError } from "../../errors.js";

/**
 * The request that inserts `rows`; `publishes` is the extension's flag (see insertTasksSql). With `notifyChannel`, the
 * same statement also sends the due tasks' wake-ups on that NOTIFY channel, so they leave with the COMMIT.
 */
export function insertRequest(db: Db, table: PgTable, rows: readonly PreparedTask[], publishes: boolean, notifyChannel?: string): InsertRequest {
  const notify = notifyChannel !== undefined;
  const concurrencyKeys = rows.some((row) => row.concurrencyKey != null);
  const traced = isTraced(rows);
  if (rows.length > 0 && !concurrencyKeys && rows.every((row) => row.key === null) && oneTraceContext(rows)) {
    const read = (result: unknown) => keylessRows(rows, result as readonly KeylessInsertRow[]);
    if (rows.length === 1) {
      return { request: db.request(insertOneKeylessTaskSql(table, notify, traced), insertOneKeylessTaskParams(rows[0]!, publishes, notifyChannel)), read };
    }
    return { request: db.request(insertKeylessTasksSql(table, notify, traced), insertKeylessTasksParams(rows, publishes, notifyChannel)), read };
  }
  return {
    request: db.request(
      insertTasksSql(table, notify, concurrencyKeys, traced),
      notify ? [insertTasksParam(rows), publishes, notifyChannel] : [insertTasksParam(rows), publishes],
    ),
    read: (result) => result as InsertedTask[],
  };
}

/** Expands the keyless statement's rows: the row without an id stands for every task it does not list by id. */
function keylessRows(rows: readonly PreparedTask[], result: readonly KeylessInsertRow[]): InsertedTask[] {
  let now: KeylessInsertRow | undefined;
  const timed = new Map<string, KeylessInsertRow>();
  for (const row of result) {
    if (row.id === null) now = row;
    else timed.set(row.id, row);
  }
  return rows.map((task, i) => {
    const at = timed.get(task.id) ?? now;
    if (!at) throw new TaskQueueInternalError(`the keyless insert returned no row for task ${task.id}`);
    return {
      i,
      id: task.id,
      name: task.name,
      queue: task.queue,
      status: "pending",
      key: null,
      runAtMs: at.runAtMs,
      created: true,
      due: at.due,
      dueInMs: at.dueInMs,
    };
  });
}
