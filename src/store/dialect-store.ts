// The one Store of every dialect: each operation is one of the dialect's SQL units (UnitStore), and the few things a
// dialect does its own way (its checks, its leader lock, readying an app's client, notifications) come from its parts.

import type { Logger } from "../logger.js";
import type { Db, OwnDb } from "./db.js";
import { LeaderElector, type LeaderCalls } from "./leader-elector.js";
import type { ElectionTiming, LeaderLock } from "./leader-lock.js";
import type { WakeupNotifications } from "./notifications.js";
import type { ScheduleDeclaration, ScheduleState } from "./schedules.js";
import {
  missingNewestColumn,
  missingQueueTable,
  missingScheduleTable,
  missingTallyTable,
  missingWorkflowSchema,
  StoreProblemError,
  type StoreProblem,
} from "./store-problem.js";
import type { ChildState, ChildrenSuspension, EventReceipt, NewStep, RecordedStep, SentEvent, StepRecord, Suspension, SuspendedTask } from "./steps.js";
import type { PrepareReport, Store } from "./store.js";
import type { TaskTable } from "./task-table.js";
import { UnitStore, type StoreUnits } from "./unit-store.js";
import { LimitedClaims, splitQueues, withoutLimits, type GateUnits } from "./limited-claim.js";
import type { QueueDeclaration, QueueState, QueueUsage } from "./queue-controls.js";
import type { TaskRecord } from "./task-record.js";
import type { ClaimByIdResult, ClaimFilter, WakeupTarget } from "./task-writes.js";
import type { ActivityWindows, QueueActivity, SuccessTally } from "./tallies.js";
import type { WorkProbe } from "./work-probe.js";
import { NotAPrismaClientError, TaskStoreNoTransactionError } from "../errors.js";

/** What a dialect writes for its store: its SQL units, and what it does its own way. */
export interface StoreParts<D extends Db, T extends TaskTable, O extends OwnDb> {
  /** The dialect's name: "postgresql". */
  readonly name: string;
  /** The database's name for people: "PostgreSQL". */
  readonly displayName: string;
  readonly units: StoreUnits<D, T>;
  /** The SQL units of the claims of limited queues. */
  readonly gate: GateUnits<D, T>;
  /** See Store.sharedConnection. */
  readonly sharedConnection: boolean;
  /** An app's Prisma client or transaction client as a Db; undefined when `client` is not one. */
  prismaDb(client: unknown): D | undefined;
  /** Reads the task table once: undefined when it can serve the queue, else what is wrong. May throw: classify() tells. */
  check(db: D, table: T): Promise<StoreProblem | undefined>;
  /** What a driver error means. */
  classify(error: unknown): StoreProblem;
  /** The calls of one contender for the leader lock `key`; `own` is undefined for a store bound to a Prisma client. */
  leader(key: number, timing: ElectionTiming, db: D, table: T, own: O | undefined): LeaderCalls;
  /** Readies an app's client (`own` undefined) or reports on the store's own connection. Absent: nothing to ready. */
  prepare?(db: D, table: T, own: O | undefined): Promise<PrepareReport>;
  /** Ends a transaction a failed one left open on an app's client. Absent where the database ends it itself. */
  endFailedTransaction?(db: D): Promise<void>;
  /** The database's notifications (see Store.notifications). Absent: none. */
  notifications?(db: D, own: O | undefined): WakeupNotifications;
  /**
   * The store's own connection, its commits not waiting for the disk flush (see Store.withAsyncCommit). Absent where
   * the database cannot choose that per transaction or per connection (capabilities.asyncCommit false).
   */
  asyncCommit?(own: O): D;
  /** The identity for in-process wake-ups (see Store.wakeupIdentity). Absent: no in-process wake-ups. */
  wakeupIdentity?(table: T, own: O | undefined): string | null;
}

export class DialectStore<D extends Db, T extends TaskTable, O extends OwnDb> extends UnitStore<D, T> implements Store {
  readonly dialect: string;
  readonly displayName: string;
  readonly sharedConnection: boolean;
  readonly notifications: WakeupNotifications | undefined;
  private readonly limited: LimitedClaims<D, T>;

  /** `own`: the store's own connection (closed by close()); undefined when `db` is an app's Prisma client or a transaction. */
  constructor(
    private readonly parts: StoreParts<D, T, O>,
    db: D,
    table: T,
    private readonly own?: O,
  ) {
    super(parts.units, db, table);
    this.dialect = parts.name;
    this.displayName = parts.displayName;
    this.sharedConnection = parts.sharedConnection;
    this.notifications = parts.notifications?.(db, own);
    this.limited = new LimitedClaims(parts.gate, parts.units.claimByIds, table);
  }

  get wakeupIdentity(): string | null | undefined {
    return this.parts.wakeupIdentity?.(this.table, this.own);
  }

  async prepare(): Promise<PrepareReport> {
    return this.parts.prepare ? this.parts.prepare(this.db, this.table, this.own) : {};
  }

  async endFailedTransaction(): Promise<void> {
    // The store's own connection: its transaction() rolls back itself.
    if (this.own === undefined) await this.parts.endFailedTransaction?.(this.db);
  }

  leaderLock(key: number, timing: ElectionTiming, logger: Logger): LeaderLock {
    return new LeaderElector(this.parts.leader(key, timing, this.db, this.table, this.own), key, logger, timing);
  }

  withAsyncCommit(): Store | undefined {
    if (!this.own || !this.parts.asyncCommit) return undefined;
    // Without `own`: closing this view closes nothing; the store it came from owns the connection.
    return new DialectStore(this.parts, this.parts.asyncCommit(this.own), this.table);
  }

  transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    const { db } = this;
    if (!db.transaction) return Promise.reject(new TaskStoreNoTransactionError());
    // A Db's transaction hands its callback a Db of the same kind.
    return db.transaction((tx) => fn(new DialectStore(this.parts, tx as D, this.table)));
  }

  through(prisma: unknown): Store {
    const db = this.parts.prismaDb(prisma);
    if (!db) throw new NotAPrismaClientError("store.through()", prisma);
    return new DialectStore(this.parts, db, this.table);
  }

  // The claims: a filter without limits runs the dialect's one statement; limited queues go through LimitedClaims.
  // Every claim reads the queue table (for the pause): without it, the error names the migration.
  override claimByIds(ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
    if (splitQueues(filter).limited.length === 0) return this.onQueueTables(() => super.claimByIds(ids, filter));
    return this.onQueueTables(() => this.limited.claimByIds(this.db, [...new Set(ids)], filter));
  }
  override async claimDue(limit: number, filter: ClaimFilter): Promise<TaskRecord[]> {
    const { limited, free } = splitQueues(filter);
    if (limited.length === 0) return this.onQueueTables(() => super.claimDue(limit, filter));
    const claimed = free.length > 0 ? await this.onQueueTables(() => super.claimDue(limit, withoutLimits(filter, free))) : [];
    for (const queue of limited) {
      if (claimed.length >= limit) break;
      claimed.push(...(await this.onQueueTables(() => this.limited.claimDue(this.db, queue, limit - claimed.length, filter))));
    }
    return claimed;
  }

  // The queue controls: a missing queue table says which table and which migration.
  override pauseQueue(queue: string): Promise<boolean> {
    return this.onQueueTables(() => super.pauseQueue(queue));
  }
  override resumeQueue(queue: string, wakeLimit: number): Promise<{ resumed: boolean; due: WakeupTarget[] }> {
    return this.onQueueTables(() => super.resumeQueue(queue, wakeLimit));
  }
  override listQueues(): Promise<QueueState[]> {
    return this.onQueueTables(() => super.listQueues());
  }
  override syncQueues(declared: readonly QueueDeclaration[]): Promise<void> {
    return this.onQueueTables(() => super.syncQueues(declared));
  }
  queueUsage(queue: string, perMs?: number): Promise<QueueUsage> {
    return this.onQueueTables(() => this.parts.gate.usage(this.db, this.table, queue, perMs));
  }
  /** Reads the queue and schedule tables: a missing one is named, with its migration. */
  override async probeWork(): Promise<WorkProbe> {
    try {
      return await super.probeWork();
    } catch (error) {
      const problem = this.parts.classify(error);
      if (problem.kind !== "missing-table") throw error;
      const missing = problem.message.includes(`${this.table.name}_schedules`) ? missingScheduleTable : missingQueueTable;
      throw new StoreProblemError(missing(this.table, problem.message), { cause: error });
    }
  }

  private async onQueueTables<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof StoreProblemError) throw error;
      const problem = this.parts.classify(error);
      if (problem.kind !== "missing-table") throw error;
      throw new StoreProblemError(missingQueueTable(this.table, problem.message), { cause: error });
    }
  }

  // The writes that tally and the read of the tallies: a missing tally table says which table and which migration.
  override deleteSucceeded(owner: string, ids: readonly string[], attempts?: readonly number[]): Promise<string[]> {
    return this.onTallyTable(super.deleteSucceeded(owner, ids, attempts));
  }
  override addSuccessTallies(writer: string, tallies: readonly SuccessTally[]): Promise<void> {
    return this.onTallyTable(super.addSuccessTallies(writer, tallies));
  }
  override prune(options: { retentionMs: number; limit: number }): Promise<string[]> {
    return this.onTallyTable(this.onWorkflowSchema(super.prune(options)));
  }
  override queueActivity(windows: ActivityWindows): Promise<QueueActivity[]> {
    return this.onTallyTable(super.queueActivity(windows));
  }

  private onTallyTable<R>(running: Promise<R>): Promise<R> {
    return running.catch((error: unknown) => {
      if (error instanceof StoreProblemError) throw error;
      const problem = this.parts.classify(error);
      if (problem.kind !== "missing-table" || !problem.message.includes(`${this.table.name}_tallies`)) throw error;
      throw new StoreProblemError(missingTallyTable(this.table, problem.message), { cause: error });
    });
  }

  // The workflow operations: a missing workflow table (or the task table's waiting_for column) says which, and the migration.
  override sendEvent(taskId: string, name: string, payloadJson: string, notifyChannel?: string): Promise<SentEvent> {
    return this.onWorkflowSchema(super.sendEvent(taskId, name, payloadJson, notifyChannel));
  }
  override loadSteps(taskId: string): Promise<StepRecord[]> {
    return this.onWorkflowSchema(super.loadSteps(taskId));
  }
  override recordStep(owner: string, step: NewStep): Promise<RecordedStep> {
    return this.onWorkflowSchema(super.recordStep(owner, step));
  }
  override receiveEvent(owner: string, taskId: string, attempt: number, seq: number, name: string): Promise<EventReceipt> {
    return this.onWorkflowSchema(super.receiveEvent(owner, taskId, attempt, seq, name));
  }
  override suspend(owner: string, suspension: Suspension): Promise<SuspendedTask | undefined> {
    return this.onWorkflowSchema(super.suspend(owner, suspension));
  }

  override linkChildren(parentId: string, childIds: readonly string[]): Promise<number> {
    return this.onWorkflowSchema(super.linkChildren(parentId, childIds));
  }
  override childStates(parentId: string): Promise<ChildState[]> {
    return this.onWorkflowSchema(super.childStates(parentId));
  }
  override suspendForChildren(owner: string, suspension: ChildrenSuspension): Promise<SuspendedTask | "changed" | undefined> {
    return this.onWorkflowSchema(super.suspendForChildren(owner, suspension));
  }
  override wakeParent(parentId: string): Promise<WakeupTarget | undefined> {
    return this.onWorkflowSchema(super.wakeParent(parentId));
  }

  /** A cancel takes a workflow's pending children with it (a database without their column says which migration). */
  override cancelTask(id: string): Promise<WakeupTarget[]> {
    return this.onWorkflowSchema(super.cancelTask(id));
  }

  private onWorkflowSchema<R>(running: Promise<R>): Promise<R> {
    return running.catch((error: unknown) => {
      if (error instanceof StoreProblemError) throw error;
      const problem = this.parts.classify(error);
      const missing = missingWorkflowSchema(this.table, problem);
      if (!missing) throw error;
      throw new StoreProblemError(missing, { cause: error });
    });
  }

  // The schedule operations: like every unit operation, except that a missing schedule table says which table and
  // which migration (check() reads the task table alone, so a store can serve tasks before that migration ran).
  override syncSchedules(declared: readonly ScheduleDeclaration[]): Promise<ScheduleState[]> {
    return this.onScheduleTables(() => super.syncSchedules(declared));
  }
  override claimScheduleSlot(schedule: string, slot: Date, taskId: string): Promise<boolean> {
    return this.onScheduleTables(() => super.claimScheduleSlot(schedule, slot, taskId));
  }
  override advanceSchedule(schedule: string, slot: Date): Promise<void> {
    return this.onScheduleTables(() => super.advanceSchedule(schedule, slot));
  }
  override listSchedules(): Promise<ScheduleState[]> {
    return this.onScheduleTables(() => super.listSchedules());
  }
  override pruneScheduleSlots(before: Date, limit: number): Promise<number> {
    return this.onScheduleTables(() => super.pruneScheduleSlots(before, limit));
  }

  private async onScheduleTables<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      const problem = this.parts.classify(error);
      if (problem.kind !== "missing-table") throw error;
      throw new StoreProblemError(missingScheduleTable(this.table, problem.message), { cause: error });
    }
  }

  async check(): Promise<StoreProblem | undefined> {
    try {
      return await this.parts.check(this.db, this.table);
    } catch (error) {
      const problem = this.parts.classify(error);
      return problem.lasting ? problem : (missingNewestColumn(this.table, error) ?? problem);
    }
  }

  classify(error: unknown): StoreProblem {
    if (error instanceof StoreProblemError) return error.problem;
    return this.parts.classify(error);
  }

  async close(): Promise<void> {
    await this.own?.close();
  }
}
