// The store: every database operation of the queue, named, with no SQL and no driver in sight. DialectStore implements
// it once over each dialect's SQL units (src/dialects/<name>/); the worker, cleaner, extension, CLI and dashboard ask
// it for operations and never see a statement. River's riverdriver.Executor is the model.

import type { InsertRequest, InsertedTask, PreparedTask } from "./enqueue-rows.js";
import type { ElectionTiming, LeaderInfo, LeaderLock } from "./leader-lock.js";
import type { Logger } from "../logger.js";
import type { WakeupNotifications } from "./notifications.js";
import type { QueueDeclaration, QueueState, QueueUsage } from "./queue-controls.js";
import type { ScheduleDeclaration, ScheduleState } from "./schedules.js";
import type { StoreProblem } from "./store-problem.js";
import type { ActivityWindows, QueueActivity, SuccessTally } from "./tallies.js";
import type { WorkProbe } from "./work-probe.js";
import type { ChildState, ChildrenSuspension, EventReceipt, NewStep, RecordedStep, SentEvent, StepRecord, Suspension, SuspendedTask } from "./steps.js";
import type { TaskRecord } from "./task-record.js";
import type { ClaimByIdResult, ClaimFilter, Completion, FailedTask, Failure, HeldLease, LeaseState, RecoveredTask, WakeupTarget } from "./task-writes.js";
import type { GroupCount, PageRequest, PendingAge, RecentWorker, StatusCount, StuckGroup, TaskDetail, TaskFilter, TaskGroup, TaskListPage, Throughput } from "./views.js";

/** Enqueue's side, always run through the app's Prisma client (or transaction client) the store is bound to. */
interface EnqueueStore {
  /**
   * The insert of `rows` as an unsent Prisma request. `publishes`: mark due tasks published now (see markUnpublished).
   * `notifyChannel` (only where `notifications` exist): the same statement sends the due tasks' wake-ups on that
   * channel, so they leave with the enqueuing transaction's COMMIT and never after a rollback.
   */
  insertTasks(rows: readonly PreparedTask[], publishes: boolean, notifyChannel?: string): InsertRequest;
  /** Tasks by dedupe key, for keys whose insert collided with a task committed after the insert's snapshot. */
  tasksByKeys(keys: readonly string[]): Promise<InsertedTask[]>;
  /**
   * Sends event `name` with `payloadJson` to task `taskId`, in the transaction of the client the store is bound to: kept
   * until one of the task's waits consumes it, when the task is pending or running (else not accepted, nothing
   * written). A task suspended in a wait for `name` becomes due now and is returned as woken (with `notifyChannel`,
   * where notifications exist, its wake-up leaves with the commit). Locks the task's row first, so a workflow that
   * suspends at the same time either sees the event or is woken by it.
   */
  sendEvent(taskId: string, name: string, payloadJson: string, notifyChannel?: string): Promise<SentEvent>;
}

/** The worker's writes. Every write that ends a run is guarded by `owner` still holding the lease. */
export interface WorkerStore {
  /**
   * Claims the pending, due tasks among `ids` that the filter allows, never waiting for a row another claimer holds.
   * Never a task of a paused queue (reason "paused"); for a queue in `filter.limits`, only as many as its limits leave
   * room for, counted under its row's lock (reason "limited" for the others, which stay pending).
   */
  claimByIds(ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]>;
  /**
   * Claims at most `limit` due pending tasks the filter allows, highest priority first, then oldest run_at (the
   * unlimited queues' first). Never from a paused queue; from a queue in `filter.limits`, only what its limits allow.
   */
  claimDue(limit: number, filter: ClaimFilter): Promise<TaskRecord[]>;
  /**
   * Marks the tasks succeeded where `owner` still holds the lease; returns the ids it marked. It tallies nothing: the
   * worker counts its successes and writes them with addSuccessTallies.
   */
  complete(owner: string, completions: readonly Completion[]): Promise<string[]>;
  /**
   * Deletes the tasks among `ids` where `owner` still holds the lease, instead of marking them succeeded (delete on
   * success, for a success with no result to keep); returns the ids it deleted. Once deleted, a task's dedupe key is
   * free for a new task. The same write tallies them as arrived in the slot of their created_at, so the scaling signal
   * still counts them as enqueued once gone (their success, as complete's, is the worker's to count).
   * `attempts`, each id's run in order (as Completion.attempt): a row that is another run of the task is left alone.
   */
  deleteSucceeded(owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<string[]>;
  /**
   * Adds successes a worker counted (per queue: how many, how many timed, their run time) to `writer`'s tally rows of
   * the database's current slot, for the scaling signal. A worker writes what it counted every second and when it stops.
   */
  addSuccessTallies(writer: string, tallies: readonly SuccessTally[]): Promise<void>;
  /** Records failed runs where `owner` still holds the lease: pending again after each delay, or dead. */
  fail(owner: string, failures: readonly Failure[]): Promise<FailedTask[]>;
  /**
   * Extends the leases `owner` holds among `ids` to leaseMs from now; says per id whether it was extended or lost.
   * `attempts`, each id's run in order: the lease of another run of the task is not extended (it is lost to this one).
   */
  extendLeases(owner: string, ids: readonly string[], leaseMs: number, attempts?: readonly number[]): Promise<LeaseState[]>;
  /**
   * Gives back the running tasks `owner` holds among `ids` without counting the run (graceful shutdown). `attempts`,
   * each id's run in order: another run of the task is left alone.
   */
  release(owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<WakeupTarget[]>;
}

/**
 * Durable workflows: the steps a run records and replays, and how a sleeping or waiting workflow goes back to the queue.
 * Every write is guarded by the run: `owner` must hold the task's lease as the run of the step's attempt. A missing
 * workflow table rejects with a StoreProblemError (kind "missing-table") naming it and the migration to apply.
 */
export interface WorkflowStore {
  /** The task's recorded steps, by seq. Reads only. */
  loadSteps(taskId: string): Promise<StepRecord[]>;
  /**
   * Records one step while `owner` holds the task as the run of `step.attempt`; never a second row for a seq (a
   * concurrent insert of the same seq waits for the first and then writes nothing). Bound to a transaction (a
   * transactional step's), it commits or rolls back with the step's own writes.
   */
  recordStep(owner: string, step: NewStep): Promise<RecordedStep>;
  /**
   * Ends wait `seq` of the run: consumes the task's oldest unconsumed event `name` and records its payload as the
   * wait's result; with none, records a timeout when the wait's deadline has passed (database clock); else leaves it
   * waiting. One transaction, guarded by the run.
   */
  receiveEvent(owner: string, taskId: string, attempt: number, seq: number, name: string): Promise<EventReceipt>;
  /**
   * Hands a sleeping or waiting run's task back to the queue: pending, due at `until` (or at once for a wait whose event
   * is there), its attempt given back (a suspension is not a failed run), lease cleared. Undefined when the run no
   * longer holds the task.
   */
  suspend(owner: string, suspension: Suspension): Promise<SuspendedTask | undefined>;
  /**
   * Makes `childIds` children of `parentId` (those that are nobody's child yet); resolves how many it made. Bound to a
   * transaction (a start of children's), it commits with their enqueues and the step's record.
   */
  linkChildren(parentId: string, childIds: readonly string[]): Promise<number>;
  /** The task's children, oldest first, with their statuses and (once succeeded) results. Reads only. */
  childStates(parentId: string): Promise<ChildState[]>;
  /**
   * Hands a workflow that waits for its children back to the queue, as suspend does, due at the recheck and woken by a
   * child's end (wakeParent) before that. In one transaction that locks the task's row first: when more of its children
   * have finished than the run saw, nothing is written and it resolves "changed" (the run looks again). Undefined when
   * the run no longer holds the task.
   */
  suspendForChildren(owner: string, suspension: ChildrenSuspension): Promise<SuspendedTask | "changed" | undefined>;
  /**
   * A child of `parentId` ended: the parent, when it waits for its children, is due now (and unpublished, so the
   * cleaner wakes it should the caller's wake-up be lost). Resolves the parent to wake, or undefined when it does not wait.
   */
  wakeParent(parentId: string): Promise<WakeupTarget | undefined>;
}

/** The cleaner's writes and scans, each bounded by `limit`. */
interface CleanerStore {
  /** Running tasks whose lease expired, longest expired first. Reads only. */
  findExpiredLeases(limit: number): Promise<TaskRecord[]>;
  /**
   * In one statement, what a bounded pass needs to know before it claims: every queue row (as listQueues), whether a
   * running task's lease has expired, and every schedule's last slot. Reads only.
   */
  probeWork(): Promise<WorkProbe>;
  /**
   * Hands one expired task's lease to `holder` for holdMs, so a recovery function can decide (outside any transaction)
   * while no late worker can complete it. Returns the task as it was (leaseOwner: the worker that lost it), or
   * undefined when it is no longer running and expired.
   */
  holdExpiredLease(id: string, holder: string, holdMs: number): Promise<TaskRecord | undefined>;
  /** Expired tasks among `ids` (or those `held` holds) back to pending, due now (dead when their attempts are used up). */
  requeueExpired(ids: readonly string[], held?: HeldLease): Promise<RecoveredTask[]>;
  /** Expired tasks among `ids` (or those `held` holds) to dead, whatever attempts remain; `detail` joins the last error. */
  abandonExpired(ids: readonly string[], detail?: string, held?: HeldLease): Promise<RecoveredTask[]>;
  /** Due pending tasks without a wake-up (delayed, retried, or due at commit and older than graceMs), oldest due first. */
  findUnpublished(options: { graceMs: number; limit: number }): Promise<WakeupTarget[]>;
  /** The queues holding a due pending task whose last wake-up is older than republishAfterMs. */
  queuesWithStaleWakeups(republishAfterMs: number): Promise<string[]>;
  /** Due pending tasks of `queues` whose last wake-up is older than republishAfterMs, oldest due first. */
  findStaleWakeups(options: { republishAfterMs: number; queues: readonly string[]; limit: number }): Promise<WakeupTarget[]>;
  /** Records that wake-ups for these pending tasks were confirmed; returns how many rows it marked. */
  markPublished(ids: readonly string[]): Promise<number>;
  /** Records that wake-ups for these pending tasks were not published, for the cleaner to send; returns how many. */
  markUnpublished(ids: readonly string[]): Promise<number>;
  /**
   * Deletes at most `limit` finished tasks older than retentionMs, oldest first, with their steps and events; returns
   * their ids. Tallies the deleted tasks enqueued within the tallies' span as arrived, and deletes tally rows older
   * than that span.
   */
  prune(options: { retentionMs: number; limit: number }): Promise<string[]>;
}

/** What an operator does by hand (CLI and dashboard). Each returns the tasks it changed, to wake them. */
interface OperatorStore {
  /** A dead or cancelled task back to pending with its attempts reset. Empty when it is missing or in another status. */
  retryTask(id: string): Promise<WakeupTarget[]>;
  /** Every dead task (of `name`, when given) back to pending, at most `limit` per call. */
  retryDeadTasks(options: { name?: string; limit: number }): Promise<WakeupTarget[]>;
  /** A pending task cancelled so it never runs. Empty when it is missing or not pending. */
  cancelTask(id: string): Promise<WakeupTarget[]>;
  /** A pending task made due now. Empty when it is missing or not pending. */
  runTaskNow(id: string): Promise<WakeupTarget[]>;
}

/** What `task-runner status` and the dashboard read. */
interface ViewStore {
  /** The database's clock. */
  now(): Promise<Date>;
  countTasks(): Promise<StatusCount[]>;
  pendingAges(): Promise<PendingAge[]>;
  /** One task with every column, or undefined. */
  findTask(id: string): Promise<TaskDetail | undefined>;
  /** Whether the table has the index that keeps the dashboard's lists and counts fast on a large table. */
  hasBrowseIndex(): Promise<boolean>;
  /** The statement that creates that index, to show an operator who lacks it. */
  browseIndexAdvice(): string;
  /** The number of tasks in the table, or `limit` when it holds at least that many; reads at most `limit` rows. */
  countTasksUpTo(limit: number): Promise<number>;
  /** The (queue, name) pairs present, ordered; `pin` fixes one side. Call only when hasBrowseIndex is true. */
  listTaskGroups(pin?: { queue?: string; name?: string }): Promise<TaskGroup[]>;
  /** Counts by queue, name and status: exact up to `exactLimit` per group when `groups` is given, else exact. */
  countGroups(options: { groups: readonly TaskGroup[] | undefined; exactLimit: number; sampleRows?: number }): Promise<GroupCount[]>;
  /** A page of tasks, newest first; `groups` from listTaskGroups when the browse index exists. */
  listTasks(filter: TaskFilter, page: PageRequest, groups: readonly TaskGroup[] | undefined): Promise<TaskListPage>;
  /** Workers seen within `windowSeconds`, most recently seen first. */
  recentWorkers(windowSeconds: number, limit?: number): Promise<RecentWorker[]>;
  /** Per queue and name: expired leases, due and scheduled pending tasks, with the age of the oldest of each. */
  stuckTasks(unpublishedGraceSeconds: number): Promise<StuckGroup[]>;
  /** Finished tasks per minute over the last hour. */
  finishedPerMinute(): Promise<Throughput>;
  /**
   * Per queue with any activity: tasks enqueued and succeeded within the rate window, and the run time of the successes
   * within the processing window, from the rows and the tallies (which outlive rows deleted on success or pruned).
   * A missing tally table rejects with a StoreProblemError (kind "missing-table") naming it and the migration.
   */
  queueActivity(windows: ActivityWindows): Promise<QueueActivity[]>;
}

/**
 * Recurring tasks: the schedules' rows and their fired slots. A slot fires by claimScheduleSlot, the task's insert and
 * advanceSchedule in one transaction, so a second firing of the same slot is refused by the database. A missing
 * schedule table rejects with a StoreProblemError (kind "missing-table") naming it and the migration to apply.
 */
export interface ScheduleStore {
  /**
   * Inserts each declared schedule not yet in the table with lastSlot = the database's now (a new schedule fires from
   * its first slot after that), updates task_name/cron/time_zone (and updated_at) of a changed one keeping its lastSlot,
   * leaves undeclared rows alone; resolves the states of the declared ones, ordered by schedule. Idempotent; safe when
   * two processes run it at once.
   */
  syncSchedules(declared: readonly ScheduleDeclaration[]): Promise<ScheduleState[]>;
  /**
   * Records `slot` of `schedule` as fired by `taskId`: true when this call wrote the row, false when it existed (never
   * throws for a duplicate). Meant to run in one transaction (store.transaction) with the task's insert and
   * advanceSchedule; a concurrent second claim of the same slot waits for the first transaction and then returns false
   * (or true when the first rolled back): never true twice.
   */
  claimScheduleSlot(schedule: string, slot: Date, taskId: string): Promise<boolean>;
  /** Sets lastSlot to `slot` when it is later than the stored one (never moves it back). */
  advanceSchedule(schedule: string, slot: Date): Promise<void>;
  /** Every schedule row, ordered by schedule, for status and the dashboard. */
  listSchedules(): Promise<ScheduleState[]>;
  /** Deletes up to `limit` slot rows fired before `before` whose slot is at or before their schedule's lastSlot; resolves how many. */
  pruneScheduleSlots(before: Date, limit: number): Promise<number>;
}

/**
 * Queue controls: a queue's row (pause, and the limits its workers declared). The limits themselves are enforced by
 * claimByIds and claimDue from the filter's `limits`; a paused queue's tasks are never claimed, limited or not. A
 * missing queue table rejects with a StoreProblemError (kind "missing-table") naming it and the migration to apply.
 */
export interface QueueControlStore {
  /**
   * Pauses `queue`: from the commit on, no claim takes its tasks (a claim already under way may still take what it
   * found); they stay pending, and running ones finish. Resolves false when it was paused already. Idempotent.
   */
  pauseQueue(queue: string): Promise<boolean>;
  /**
   * Resumes `queue`: claims take its tasks again. Its due pending tasks are marked unpublished (the cleaner sends their
   * wake-ups) and up to `wakeLimit` of them, oldest due first, are resolved for the caller to wake now. `resumed` is
   * false when it was not paused.
   */
  resumeQueue(queue: string, wakeLimit: number): Promise<{ resumed: boolean; due: WakeupTarget[] }>;
  /** Every queue row, ordered by queue, for status and the dashboard. */
  listQueues(): Promise<QueueState[]>;
  /** Writes the declared limits of each queue into its row (creating it), leaving its pause alone. Idempotent. */
  syncQueues(declared: readonly QueueDeclaration[]): Promise<void>;
  /**
   * What runs now in `queue` and, with a rate window of `perMs`, the starts recorded within it: read without the queue's
   * lock (the claims count under it), for the cleaner to wake no more of a backlog than its limits let start.
   */
  queueUsage(queue: string, perMs?: number): Promise<QueueUsage>;
}

/** Leadership among cleaners. */
interface LeaderStore {
  /** The lock key cleaners of this table compete for when none is configured. */
  defaultLockKey(): number;
  /** A contender for the lock `key`, on a session of its own. */
  leaderLock(key: number, timing: ElectionTiming, logger: Logger): LeaderLock;
  /** Who holds the lock `key`, or undefined when nobody leads. */
  leaderHolder(key: number): Promise<LeaderInfo | undefined>;
}

/** What Store.prepare() found about the app's client. */
export interface PrepareReport {
  /** The database's identity for in-process wake-ups, when the dialect delivers them (SQLite: its file and table). */
  wakeupIdentity?: string;
  /**
   * A URL on which a worker in this process should open connections of its own to the same database, when the app's
   * client runs every statement on one connection (SQLite): a worker statement sent through it while the app holds a
   * transaction open would run inside that transaction, and vanish with its rollback. Undefined when the client's
   * pool gives each statement its own connection (PostgreSQL, MySQL), or when there is no file to open (SQLite in
   * memory).
   */
  workerUrl?: string;
  problem?: StoreProblem;
  notes?: string[];
}

/** The whole store of one dialect, bound to one task table and one connection (a pool, or a Prisma client). */
export interface Store extends EnqueueStore, WorkerStore, WorkflowStore, CleanerStore, ScheduleStore, QueueControlStore, OperatorStore, ViewStore, LeaderStore {
  /** The dialect's name: "postgresql". */
  readonly dialect: string;
  /** The database's name for people: "PostgreSQL". */
  readonly displayName: string;
  /**
   * Which database this is, for wake-ups delivered inside one process: a string when known, null when the dialect
   * delivers in-process but the store learns its identity only with prepare() (one bound to an app's client),
   * undefined when the dialect does not (PostgreSQL: a broker or polling).
   */
  readonly wakeupIdentity: string | null | undefined;
  /** The database's notifications (PostgreSQL LISTEN/NOTIFY), for the NOTIFY wake-up transport; undefined without. */
  readonly notifications: WakeupNotifications | undefined;
  /**
   * Readies the app's client once, before its first enqueue: SQLite sets WAL, checks the time format the adapter
   * writes, and learns the database's identity. Resolves what it found; never rejects.
   */
  prepare(): Promise<PrepareReport>;
  /**
   * True when the app's client runs every statement on one connection (SQLite): a statement sent outside a transaction
   * then runs inside whatever transaction is open on it. The extension therefore runs the client's transactions one at
   * a time, ends a failed one with endFailedTransaction() before the next starts, and gives an enqueue outside a
   * transaction a transaction of its own. False when each statement gets a connection of its own (a pool).
   */
  readonly sharedConnection: boolean;
  /**
   * Ends a transaction that a failed one left open on the client's connection: SQLite keeps a transaction open after a
   * COMMIT that failed (a deferred foreign key, SQLITE_BUSY), and Prisma's adapter sends no ROLLBACK then. Resolves
   * when no transaction is open; rejects when one is and cannot be ended. Nothing to do where the database ends a
   * failed transaction itself and the pool drops a broken connection (PostgreSQL, MySQL).
   */
  endFailedTransaction(): Promise<void>;
  /** Runs `fn` inside one transaction, with a store bound to it. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** The same store bound to a Prisma client or transaction client (a transactional handler's `tx`). */
  through(prisma: unknown): Store;
  /**
   * The same store on the same connection, its writes committing without waiting for the database to flush them to
   * disk (PostgreSQL: `SET LOCAL synchronous_commit = off` in each transaction). A crash of the database server (not
   * of this process) shortly after such a commit can undo it. Undefined where the dialect cannot choose this for the
   * store's own connection alone (capabilities.asyncCommit false), and for a store bound to a Prisma client. Closing
   * it closes nothing.
   */
  withAsyncCommit(): Store | undefined;
  /** Reads the task table once: undefined when it can serve the queue, else what is wrong. Never throws. */
  check(): Promise<StoreProblem | undefined>;
  /** What a driver error means. */
  classify(error: unknown): StoreProblem;
  /** Closes the connections the store opened (never a Prisma client it was given). */
  close(): Promise<void>;
}
