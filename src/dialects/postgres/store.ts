// The PostgreSQL store's parts: each operation's SQL unit of ./sql or ./dashboard-sql, run through a Db (a pg pool of
// the store's own, or an app's Prisma client), and what PostgreSQL does its own way (notifications, the version check).

import type { StoreParts } from "../../store/dialect-store.js";
import type { StoreUnits } from "../../store/unit-store.js";
import { countGroups } from "./dashboard-sql/count-groups.js";
import { browseIndexSql, hasBrowseIndex } from "./dashboard-sql/browse-index.js";
import { countTasksUpTo } from "./dashboard-sql/table-size.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { recentWorkers } from "./dashboard-sql/recent-workers.js";
import { stuckTasks } from "./dashboard-sql/stuck-tasks.js";
import { findTask } from "./dashboard-sql/task-detail.js";
import { listTaskGroups } from "./dashboard-sql/task-groups.js";
import { finishedPerMinute } from "./dashboard-sql/throughput.js";
import type { Db } from "../../store/db.js";
import { classifyPgError, serverVersionProblem } from "./errors.js";
import { insertRequest } from "./insert-request.js";
import { pgNotifications } from "./notifications.js";
import { advisoryLock } from "./leader.js";
import type { PgOwnDb } from "./own-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { cleanerLockKey, leaderLockHolder } from "./sql/leader.js";
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
import { cancelTask, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { queueActivity } from "./dashboard-sql/queue-activity.js";
import { pruneTasks } from "./sql/prune-tasks.js";
import { countTasks, now, pendingAges } from "./sql/queue-stats.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { releaseTasks } from "./sql/release-tasks.js";
import { advanceSchedule, claimScheduleSlot, listSchedules, pruneScheduleSlots, syncSchedules } from "./sql/schedules.js";
import { checkTable } from "./sql/check-table.js";
import { listQueues, pauseQueue, resumeQueue, syncQueues } from "./sql/queue-controls.js";
import { pgGate } from "./sql/queue-gate.js";
import { probeWork } from "./sql/probe-work.js";
import { addSuccessTallies } from "./sql/tallies.js";
import { sendEvent } from "./sql/send-event.js";
import { loadSteps, receiveEvent, recordStep, suspend } from "./sql/workflow-steps.js";
import { childStates, linkChildren, suspendForChildren, wakeParent } from "./sql/workflow-children.js";
import type { PgTable } from "./table.js";
import { LeaderLockStoreError, PooledLeaderLockError } from "../../leader-errors.js";

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<Db, PgTable> = {
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
  leaderHolder: (db, _table, key) => leaderLockHolder(db, key),
};

export const postgresParts: StoreParts<Db, PgTable, PgOwnDb> = {
  name: "postgresql",
  displayName: "PostgreSQL",
  units: UNITS,
  gate: pgGate,
  sharedConnection: false,
  prismaDb: (client) => (isPrismaRawClient(client) ? prismaDb(client) : undefined),
  async check(db, table) {
    const { versionNum, version, banner } = await checkTable(db, table);
    return serverVersionProblem(versionNum, version, banner);
  },
  classify: classifyPgError,
  leader(key, timing, _db, _table, own) {
    if (!own) throw new LeaderLockStoreError();
    if (own.sessionUrl === undefined) throw new PooledLeaderLockError();
    return advisoryLock(own.sessionUrl, key, timing);
  },
  notifications: (db, own) => pgNotifications(db, own),
  asyncCommit: (own) => own.asyncCommit,
};
