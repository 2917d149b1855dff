// The Store operations every dialect runs the same way: one SQL unit of the dialect's folder, called with the store's
// connection and table. DialectStore extends it with what a dialect does its own way (checks, leader, transactions).

import type { Store } from "./store.js";

/** The Store operations that are one SQL unit each, called as unit(db, table, ...the operation's arguments). */
export const UNIT_OPERATIONS = [
  "insertTasks",
  "tasksByKeys",
  "sendEvent",
  "loadSteps",
  "recordStep",
  "receiveEvent",
  "suspend",
  "linkChildren",
  "childStates",
  "suspendForChildren",
  "wakeParent",
  "claimByIds",
  "claimDue",
  "complete",
  "deleteSucceeded",
  "addSuccessTallies",
  "fail",
  "extendLeases",
  "release",
  "findExpiredLeases",
  "probeWork",
  "holdExpiredLease",
  "requeueExpired",
  "abandonExpired",
  "findUnpublished",
  "queuesWithStaleWakeups",
  "findStaleWakeups",
  "markPublished",
  "markUnpublished",
  "prune",
  "syncSchedules",
  "claimScheduleSlot",
  "advanceSchedule",
  "listSchedules",
  "pruneScheduleSlots",
  "pauseQueue",
  "resumeQueue",
  "listQueues",
  "syncQueues",
  "retryTask",
  "retryDeadTasks",
  "cancelTask",
  "runTaskNow",
  "now",
  "countTasks",
  "pendingAges",
  "findTask",
  "hasBrowseIndex",
  "browseIndexAdvice",
  "countTasksUpTo",
  "listTaskGroups",
  "countGroups",
  "listTasks",
  "recentWorkers",
  "stuckTasks",
  "finishedPerMinute",
  "queueActivity",
  "defaultLockKey",
  "leaderHolder",
] as const;

export type UnitOperation = (typeof UNIT_OPERATIONS)[number];

/** A dialect's SQL units, one per operation, typed by the Store's own signatures. */
export type StoreUnits<D, T> = { [K in UnitOperation]: (db: D, table: T, ...args: Parameters<Store[K]>) => ReturnType<Store[K]> };

/** Runs each unit operation through the dialect's unit with this store's connection and table. */
export abstract class UnitStore<D, T> implements Pick<Store, UnitOperation> {
  protected constructor(
    /** The dialect's SQL unit of each operation. */
    readonly units: StoreUnits<D, T>,
    protected readonly db: D,
    protected readonly table: T,
  ) {}

  insertTasks(...args: Parameters<Store["insertTasks"]>) {
    return this.units.insertTasks(this.db, this.table, ...args);
  }
  tasksByKeys(...args: Parameters<Store["tasksByKeys"]>) {
    return this.units.tasksByKeys(this.db, this.table, ...args);
  }
  sendEvent(...args: Parameters<Store["sendEvent"]>) {
    return this.units.sendEvent(this.db, this.table, ...args);
  }
  loadSteps(...args: Parameters<Store["loadSteps"]>) {
    return this.units.loadSteps(this.db, this.table, ...args);
  }
  recordStep(...args: Parameters<Store["recordStep"]>) {
    return this.units.recordStep(this.db, this.table, ...args);
  }
  receiveEvent(...args: Parameters<Store["receiveEvent"]>) {
    return this.units.receiveEvent(this.db, this.table, ...args);
  }
  suspend(...args: Parameters<Store["suspend"]>) {
    return this.units.suspend(this.db, this.table, ...args);
  }
  linkChildren(...args: Parameters<Store["linkChildren"]>) {
    return this.units.linkChildren(this.db, this.table, ...args);
  }
  childStates(...args: Parameters<Store["childStates"]>) {
    return this.units.childStates(this.db, this.table, ...args);
  }
  suspendForChildren(...args: Parameters<Store["suspendForChildren"]>) {
    return this.units.suspendForChildren(this.db, this.table, ...args);
  }
  wakeParent(...args: Parameters<Store["wakeParent"]>) {
    return this.units.wakeParent(this.db, this.table, ...args);
  }
  claimByIds(...args: Parameters<Store["claimByIds"]>) {
    return this.units.claimByIds(this.db, this.table, ...args);
  }
  claimDue(...args: Parameters<Store["claimDue"]>) {
    return this.units.claimDue(this.db, this.table, ...args);
  }
  complete(...args: Parameters<Store["complete"]>) {
    return this.units.complete(this.db, this.table, ...args);
  }
  deleteSucceeded(...args: Parameters<Store["deleteSucceeded"]>) {
    return this.units.deleteSucceeded(this.db, this.table, ...args);
  }
  addSuccessTallies(...args: Parameters<Store["addSuccessTallies"]>) {
    return this.units.addSuccessTallies(this.db, this.table, ...args);
  }

  fail(...args: Parameters<Store["fail"]>) {
    return this.units.fail(this.db, this.table, ...args);
  }
  extendLeases(...args: Parameters<Store["extendLeases"]>) {
    return this.units.extendLeases(this.db, this.table, ...args);
  }
  release(...args: Parameters<Store["release"]>) {
    return this.units.release(this.db, this.table, ...args);
  }
  findExpiredLeases(...args: Parameters<Store["findExpiredLeases"]>) {
    return this.units.findExpiredLeases(this.db, this.table, ...args);
  }
  probeWork(...args: Parameters<Store["probeWork"]>) {
    return this.units.probeWork(this.db, this.table, ...args);
  }

  holdExpiredLease(...args: Parameters<Store["holdExpiredLease"]>) {
    return this.units.holdExpiredLease(this.db, this.table, ...args);
  }
  requeueExpired(...args: Parameters<Store["requeueExpired"]>) {
    return this.units.requeueExpired(this.db, this.table, ...args);
  }
  abandonExpired(...args: Parameters<Store["abandonExpired"]>) {
    return this.units.abandonExpired(this.db, this.table, ...args);
  }
  findUnpublished(...args: Parameters<Store["findUnpublished"]>) {
    return this.units.findUnpublished(this.db, this.table, ...args);
  }
  queuesWithStaleWakeups(...args: Parameters<Store["queuesWithStaleWakeups"]>) {
    return this.units.queuesWithStaleWakeups(this.db, this.table, ...args);
  }
  findStaleWakeups(...args: Parameters<Store["findStaleWakeups"]>) {
    return this.units.findStaleWakeups(this.db, this.table, ...args);
  }
  markPublished(...args: Parameters<Store["markPublished"]>) {
    return this.units.markPublished(this.db, this.table, ...args);
  }
  markUnpublished(...args: Parameters<Store["markUnpublished"]>) {
    return this.units.markUnpublished(this.db, this.table, ...args);
  }
  prune(...args: Parameters<Store["prune"]>) {
    return this.units.prune(this.db, this.table, ...args);
  }
  syncSchedules(...args: Parameters<Store["syncSchedules"]>) {
    return this.units.syncSchedules(this.db, this.table, ...args);
  }
  claimScheduleSlot(...args: Parameters<Store["claimScheduleSlot"]>) {
    return this.units.claimScheduleSlot(this.db, this.table, ...args);
  }
  advanceSchedule(...args: Parameters<Store["advanceSchedule"]>) {
    return this.units.advanceSchedule(this.db, this.table, ...args);
  }
  listSchedules(...args: Parameters<Store["listSchedules"]>) {
    return this.units.listSchedules(this.db, this.table, ...args);
  }
  pruneScheduleSlots(...args: Parameters<Store["pruneScheduleSlots"]>) {
    return this.units.pruneScheduleSlots(this.db, this.table, ...args);
  }
  pauseQueue(...args: Parameters<Store["pauseQueue"]>) {
    return this.units.pauseQueue(this.db, this.table, ...args);
  }
  resumeQueue(...args: Parameters<Store["resumeQueue"]>) {
    return this.units.resumeQueue(this.db, this.table, ...args);
  }
  listQueues(...args: Parameters<Store["listQueues"]>) {
    return this.units.listQueues(this.db, this.table, ...args);
  }
  syncQueues(...args: Parameters<Store["syncQueues"]>) {
    return this.units.syncQueues(this.db, this.table, ...args);
  }
  retryTask(...args: Parameters<Store["retryTask"]>) {
    return this.units.retryTask(this.db, this.table, ...args);
  }
  retryDeadTasks(...args: Parameters<Store["retryDeadTasks"]>) {
    return this.units.retryDeadTasks(this.db, this.table, ...args);
  }
  cancelTask(...args: Parameters<Store["cancelTask"]>) {
    return this.units.cancelTask(this.db, this.table, ...args);
  }
  runTaskNow(...args: Parameters<Store["runTaskNow"]>) {
    return this.units.runTaskNow(this.db, this.table, ...args);
  }
  pendingAges(...args: Parameters<Store["pendingAges"]>) {
    return this.units.pendingAges(this.db, this.table, ...args);
  }
  findTask(...args: Parameters<Store["findTask"]>) {
    return this.units.findTask(this.db, this.table, ...args);
  }
  hasBrowseIndex(...args: Parameters<Store["hasBrowseIndex"]>) {
    return this.units.hasBrowseIndex(this.db, this.table, ...args);
  }
  countTasksUpTo(...args: Parameters<Store["countTasksUpTo"]>) {
    return this.units.countTasksUpTo(this.db, this.table, ...args);
  }
  listTaskGroups(...args: Parameters<Store["listTaskGroups"]>) {
    return this.units.listTaskGroups(this.db, this.table, ...args);
  }
  countGroups(...args: Parameters<Store["countGroups"]>) {
    return this.units.countGroups(this.db, this.table, ...args);
  }
  listTasks(...args: Parameters<Store["listTasks"]>) {
    return this.units.listTasks(this.db, this.table, ...args);
  }
  recentWorkers(...args: Parameters<Store["recentWorkers"]>) {
    return this.units.recentWorkers(this.db, this.table, ...args);
  }
  stuckTasks(...args: Parameters<Store["stuckTasks"]>) {
    return this.units.stuckTasks(this.db, this.table, ...args);
  }
  finishedPerMinute(...args: Parameters<Store["finishedPerMinute"]>) {
    return this.units.finishedPerMinute(this.db, this.table, ...args);
  }
  queueActivity(...args: Parameters<Store["queueActivity"]>) {
    return this.units.queueActivity(this.db, this.table, ...args);
  }
  now(...args: Parameters<Store["now"]>) {
    return this.units.now(this.db, this.table, ...args);
  }
  countTasks(...args: Parameters<Store["countTasks"]>) {
    return this.units.countTasks(this.db, this.table, ...args);
  }
  browseIndexAdvice(...args: Parameters<Store["browseIndexAdvice"]>) {
    return this.units.browseIndexAdvice(this.db, this.table, ...args);
  }
  defaultLockKey(...args: Parameters<Store["defaultLockKey"]>) {
    return this.units.defaultLockKey(this.db, this.table, ...args);
  }
  leaderHolder(...args: Parameters<Store["leaderHolder"]>) {
    return this.units.leaderHolder(this.db, this.table, ...args);
  }
}
