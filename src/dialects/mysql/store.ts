// The Store on MySQL 8 and MariaDB 10.6+: each operation is one SQL unit of ./sql or ./dashboard-sql, run through a
// CountingDb (a mariadb pool of the store's own, or an app's Prisma client on @prisma/adapter-mariadb).

import type { StoreParts } from "../../store/dialect-store.js";
import type { StoreUnits } from "../../store/unit-store.js";
import { browseIndexSql, hasBrowseIndex } from "./dashboard-sql/browse-index.js";
import { countTasksUpTo } from "./dashboard-sql/table-size.js";
import { countGroups } from "./dashboard-sql/count-groups.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { recentWorkers } from "./dashboard-sql/recent-workers.js";
import { stuckTasks } from "./dashboard-sql/stuck-tasks.js";
import { findTask } from "./dashboard-sql/task-detail.js";
import { listTaskGroups } from "./dashboard-sql/task-groups.js";
import { finishedPerMinute } from "./dashboard-sql/throughput.js";
import { queueActivity } from "./dashboard-sql/queue-activity.js";
import type { CountingDb } from "../../store/db.js";
import { classifyMysqlError } from "./errors.js";
import { insertRequest } from "./insert-request.js";
import { namedLock } from "./leader.js";
import type { MysqlOwnDb } from "./own-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { serverVersionProblem } from "./server-version.js";
import { checkTable } from "./sql/check-table.js";
import { claimDueTasks } from "./sql/claim-due-tasks.js";
import { claimTasksByIds } from "./sql/claim-tasks.js";
import { completeTasks } from "./sql/complete-tasks.js";
import { deleteSucceededTasks } from "./sql/delete-succeeded-tasks.js";
import { extendLeases } from "./sql/extend-leases.js";
import { failTasks } from "./sql/fail-tasks.js";
import { findStaleWakeups, queuesWithStaleWakeups } from "./sql/find-stale-wakeups.js";
import { findUnpublished } from "./sql/find-unpublished.js";
import { selectTasksByKeys } from "./sql/insert-tasks.js";
import { markPublished, markUnpublished } from "./sql/mark-published.js";
import { cleanerLockKey, namedLockHolder } from "./sql/leader.js";
import { cancelTask, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { pruneTasks } from "./sql/prune-tasks.js";
import { countTasks, now, pendingAges } from "./sql/queue-stats.js";
import { addSuccessTallies } from "./sql/tallies.js";
import { loadSteps, receiveEvent, recordStep, sendEvent, suspend } from "./sql/workflow-steps.js";
import { childStates, linkChildren, suspendForChildren, wakeParent } from "./sql/workflow-children.js";
import { probeWork } from "./sql/probe-work.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { releaseTasks } from "./sql/release-tasks.js";
import { advanceSchedule, claimScheduleSlot, listSchedules, pruneScheduleSlots, syncSchedules } from "./sql/schedules.js";
import type { MysqlTable } from "./table.js";
import { listQueues, pauseQueue, resumeQueue, syncQueues } from "./sql/queue-controls.js";
import { mysqlGate } from "./sql/queue-gate.js";
import { LeaderLockStoreError } from "../../leader-errors.js";

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<CountingDb, MysqlTable> = {
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
  countGroups,
  listTasks,
  recentWorkers,
  stuckTasks,
  finishedPerMinute,
  queueActivity,
  now,
  countTasks,
  browseIndexAdvice: (_db, table) => browseIndexSql(table),
  defaultLockKey: (_db, table) => cleanerLockKey(table),
  leaderHolder: (db, table, key) => namedLockHolder(db, { key, database: table.schema }),
};

/** No LISTEN/NOTIFY and no in-process wake-ups here: a broker, or polling. */
export const mysqlParts: StoreParts<CountingDb, MysqlTable, MysqlOwnDb> = {
  name: "mysql",
  displayName: "MySQL",
  units: UNITS,
  gate: mysqlGate,
  sharedConnection: false,
  prismaDb: (client) => (isPrismaRawClient(client) ? prismaDb(client) : undefined),
  check: async (db, table) => serverVersionProblem(await checkTable(db, table)),
  classify: classifyMysqlError,
  leader(key, timing, _db, table, own) {
    if (!own) throw new LeaderLockStoreError();
    return namedLock(own.url, { key, database: table.schema }, timing);
  },
};
