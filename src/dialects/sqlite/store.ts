// The SQLite store's parts: each operation's SQL unit of ./sql or ./dashboard-sql, run through a Db (a better-sqlite3
// connection of the store's own, or an app's Prisma client on @prisma/adapter-better-sqlite3), and what SQLite does its
// own way: one connection shared by the app's client, in-process wake-ups, readying the app's client.

import { queueActivity } from "./dashboard-sql/queue-activity.js";
import { realpathSync } from "node:fs";
import type { StoreParts } from "../../store/dialect-store.js";
import type { StoreUnits } from "../../store/unit-store.js";
import { now } from "./clock.js";
import { finishedPerMinute, recentWorkers, stuckTasks } from "./dashboard-sql/activity.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { browseIndexSql, countGroups, countTasks, countTasksUpTo, findTask, hasBrowseIndex, listTaskGroups, pendingAges } from "./dashboard-sql/views.js";
import type { Db } from "../../store/db.js";
import { classifySqliteError } from "./errors.js";
import { insertRequest } from "./insert-request.js";
import { leaseLock, leaseName } from "./leader.js";
import type { SqliteFileDb } from "./own-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { checkTables } from "./sql/check-table.js";
import { prepareClient } from "./sql/prepare-client.js";
import { claimDueTasks, claimTasksByIds } from "./sql/claim-tasks.js";
import { selectTasksByKeys } from "./sql/insert-tasks.js";
import { leaseHolder } from "./sql/leader.js";
import { cancelTask, pruneTasks, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { completeTasks, extendLeases, failTasks, releaseTasks } from "./sql/outcomes.js";
import { deleteSucceededTasks } from "./sql/delete-succeeded-tasks.js";
import { addSuccessTallies } from "./sql/tallies.js";
import { loadSteps, receiveEvent, recordStep, sendEvent, suspend } from "./sql/workflow-steps.js";
import { childStates, linkChildren, suspendForChildren, wakeParent } from "./sql/workflow-children.js";
import { probeWork } from "./sql/probe-work.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { advanceSchedule, claimScheduleSlot, listSchedules, pruneScheduleSlots, syncSchedules } from "./sql/schedules.js";
import { findStaleWakeups, findUnpublished, markPublished, markUnpublished, queuesWithStaleWakeups } from "./sql/wakeups.js";
import type { SqliteTable } from "./table.js";
import { listQueues, pauseQueue, resumeQueue, syncQueues } from "./sql/queue-controls.js";
import { sqliteGate } from "./sql/queue-gate.js";

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<Db, SqliteTable> = {
  insertTasks: insertRequest,
  tasksByKeys: selectTasksByKeys,
  sendEvent,
  loadSteps,
  recordStep,
  receiveEvent,
  suspend,
  linkChildren,
  childStates,
  suspendForChildren,
  wakeParent,
  claimByIds: claimTasksByIds,
  claimDue: claimDueTasks,
  complete: completeTasks,
  deleteSucceeded: deleteSucceededTasks,
  addSuccessTallies,
  fail: failTasks,
  extendLeases,
  release: releaseTasks,
  findExpiredLeases,
  probeWork,
  holdExpiredLease,
  requeueExpired,
  abandonExpired,
  findUnpublished,
  queuesWithStaleWakeups,
  findStaleWakeups,
  markPublished,
  markUnpublished,
  prune: pruneTasks,
  syncSchedules,
  claimScheduleSlot,
  advanceSchedule,
  listSchedules,
  pruneScheduleSlots,
  pauseQueue,
  resumeQueue,
  listQueues,
  syncQueues,
  retryTask,
  retryDeadTasks,
  cancelTask,
  runTaskNow,
  pendingAges,
  findTask,
  hasBrowseIndex,
  countTasksUpTo,
  listTaskGroups,
  countGroups: (db, table, options) => countGroups(db, table, options.groups),
  listTasks,
  recentWorkers,
  stuckTasks,
  finishedPerMinute,
  queueActivity,
  now,
  countTasks: (db, table) => countTasks(db, table).then((rows) => rows.map((row) => ({ ...row, count: Number(row.count) }))),
  browseIndexAdvice: (_db, table) => browseIndexSql(table),
  // The lock key's only use on SQLite is the lease row's name; 1 for every table (each table has its own leaders table).
  defaultLockKey: () => 1,
  leaderHolder: (db, table, key) => leaseHolder(db, table, leaseName(key)),
};

/** No LISTEN/NOTIFY here: wake-ups come from RabbitMQ, in-process delivery or polling. */
export const sqliteParts: StoreParts<Db, SqliteTable, SqliteFileDb> = {
  name: "sqlite",
  displayName: "SQLite",
  units: UNITS,
  gate: sqliteGate,
  /** The app's client (on @prisma/adapter-better-sqlite3) runs every statement on one connection. */
  sharedConnection: true,
  prismaDb: (client) => (isPrismaRawClient(client) ? prismaDb(client) : undefined),
  check: checkTables,
  classify: classifySqliteError,
  leader: (key, timing, db, table) => leaseLock(db, table, key, timing),
  async prepare(db, table, file) {
    if (file) return { wakeupIdentity: identityOf(file.path, table) };
    try {
      const report = await prepareClient(db);
      return {
        wakeupIdentity: report.file ? identityOf(report.file, table) : undefined,
        workerUrl: report.file ? `file:${report.file}` : undefined,
        problem: report.problem,
        notes: report.notes,
      };
    } catch (error) {
      return { notes: [`could not ready the SQLite client: ${(error as Error).message}`] };
    }
  },
  async endFailedTransaction(db) {
    try {
      await db.query("ROLLBACK", []);
    } catch (error) {
      if (!isNoTransaction(error)) throw error;
    }
  },
  wakeupIdentity: (table, file) => (file ? identityOf(file.path, table) : null),
};

/** True for the error of a ROLLBACK sent when no transaction is open: the failed transaction ended itself. */
function isNoTransaction(error: unknown): boolean {
  return /no transaction is active/.test(classifySqliteError(error).message);
}

/** The in-process wake-up identity of a database file and table: the same for every path that reaches the file. */
function identityOf(path: string, table: SqliteTable): string {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // a file that vanished: its path is the best identity left
  }
  return `sqlite:${real}#${table.name}`;
}
