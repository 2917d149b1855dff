// The Store on MySQL 8 and MariaDB 10.6+: each operation is one SQL unit of ./sql or ./dashboard-sql, run through a
// Db (a mariadb pool of the store's own, or an app's Prisma client on @prisma/adapter-mariadb).

import type { Logger } from "../../logger.js";
import type { PreparedTask } from "../../store/enqueue-rows.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { StoreProblem } from "../../store/store-problem.js";
import type { Store } from "../../store/store.js";
import type { ClaimFilter, Completion, Failure, HeldLease } from "../../store/task-writes.js";
import type { PageRequest, TaskFilter, TaskGroup } from "../../store/views.js";
import { browseIndexSql, hasBrowseIndex } from "./dashboard-sql/browse-index.js";
import { countGroups } from "./dashboard-sql/count-groups.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { recentWorkers } from "./dashboard-sql/recent-workers.js";
import { stuckTasks } from "./dashboard-sql/stuck-tasks.js";
import { findTask } from "./dashboard-sql/task-detail.js";
import { listTaskGroups } from "./dashboard-sql/task-groups.js";
import { finishedPerMinute } from "./dashboard-sql/throughput.js";
import type { Db } from "./db.js";
import { classifyMysqlError } from "./errors.js";
import { insertRequest } from "./insert-request.js";
import { NamedLockLeaderLock } from "./leader-lock.js";
import type { PoolDb } from "./pool-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { serverVersionProblem } from "./server-version.js";
import { checkTable } from "./sql/check-table.js";
import { claimDueTasks } from "./sql/claim-due-tasks.js";
import { claimTasksByIds } from "./sql/claim-tasks.js";
import { completeTasks } from "./sql/complete-tasks.js";
import { extendLeases } from "./sql/extend-leases.js";
import { failTasks } from "./sql/fail-tasks.js";
import { findStaleWakeups, queuesWithStaleWakeups } from "./sql/find-stale-wakeups.js";
import { findUnpublished } from "./sql/find-unpublished.js";
import { selectTasksByKeys } from "./sql/insert-tasks.js";
import { markPublished, markUnpublished } from "./sql/mark-published.js";
import { cleanerLockKey, namedLockHolder } from "./sql/named-lock.js";
import { cancelTask, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { pruneTasks } from "./sql/prune-tasks.js";
import { countTasks, pendingAges } from "./sql/queue-stats.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { releaseTasks } from "./sql/release-tasks.js";
import { fromTimeText, NOW, timeText } from "./sql/values.js";
import type { MysqlTable } from "./table.js";

export class MysqlStore implements Store {
  readonly dialect = "mysql";
  readonly displayName = "MySQL";
  /** No in-process wake-ups: a broker or polling, as on PostgreSQL. */
  /** No LISTEN/NOTIFY here: wake-ups come from RabbitMQ, in-process delivery or polling. */
  readonly notifications = undefined;
  readonly wakeupIdentity = undefined;

  /** `pool`: the store's own pool (closed by close()); undefined when `db` is an app's Prisma client or a transaction. */
  constructor(
    private readonly db: Db,
    private readonly table: MysqlTable,
    private readonly pool?: PoolDb,
  ) {}

  insertTasks(rows: readonly PreparedTask[], publishes: boolean) {
    return insertRequest(this.db, this.table, rows, publishes);
  }
  tasksByKeys(keys: readonly string[]) {
    return selectTasksByKeys(this.db, this.table, keys);
  }

  claimByIds(ids: readonly string[], filter: ClaimFilter) {
    return claimTasksByIds(this.db, this.table, ids, filter);
  }
  claimDue(limit: number, filter: ClaimFilter) {
    return claimDueTasks(this.db, this.table, limit, filter);
  }
  complete(owner: string, completions: readonly Completion[]) {
    return completeTasks(this.db, this.table, owner, completions);
  }
  fail(owner: string, failures: readonly Failure[]) {
    return failTasks(this.db, this.table, owner, failures);
  }
  extendLeases(owner: string, ids: readonly string[], leaseMs: number) {
    return extendLeases(this.db, this.table, owner, ids, leaseMs);
  }
  release(owner: string, ids: readonly string[]) {
    return releaseTasks(this.db, this.table, owner, ids);
  }

  findExpiredLeases(limit: number) {
    return findExpiredLeases(this.db, this.table, limit);
  }
  holdExpiredLease(id: string, holder: string, holdMs: number) {
    return holdExpiredLease(this.db, this.table, id, holder, holdMs);
  }
  requeueExpired(ids: readonly string[], held?: HeldLease) {
    return requeueExpired(this.db, this.table, ids, held);
  }
  abandonExpired(ids: readonly string[], detail?: string, held?: HeldLease) {
    return abandonExpired(this.db, this.table, ids, detail, held);
  }
  findUnpublished(options: { graceMs: number; limit: number }) {
    return findUnpublished(this.db, this.table, options);
  }
  queuesWithStaleWakeups(republishAfterMs: number) {
    return queuesWithStaleWakeups(this.db, this.table, republishAfterMs);
  }
  findStaleWakeups(options: { republishAfterMs: number; queues: readonly string[]; limit: number }) {
    return findStaleWakeups(this.db, this.table, options);
  }
  markPublished(ids: readonly string[]) {
    return markPublished(this.db, this.table, ids);
  }
  markUnpublished(ids: readonly string[]) {
    return markUnpublished(this.db, this.table, ids);
  }
  prune(options: { retentionMs: number; limit: number }) {
    return pruneTasks(this.db, this.table, options);
  }

  retryTask(id: string) {
    return retryTask(this.db, this.table, id);
  }
  retryDeadTasks(options: { name?: string; limit: number }) {
    return retryDeadTasks(this.db, this.table, options);
  }
  cancelTask(id: string) {
    return cancelTask(this.db, this.table, id);
  }
  runTaskNow(id: string) {
    return runTaskNow(this.db, this.table, id);
  }

  async now(): Promise<Date> {
    const rows = await this.db.query<{ db_now: string }>(`SELECT ${timeText(NOW)} AS db_now`, []);
    return fromTimeText(rows[0]!.db_now);
  }
  countTasks() {
    return countTasks(this.db, this.table);
  }
  pendingAges() {
    return pendingAges(this.db, this.table);
  }
  findTask(id: string) {
    return findTask(this.db, this.table, id);
  }
  hasBrowseIndex() {
    return hasBrowseIndex(this.db, this.table);
  }
  browseIndexAdvice() {
    return browseIndexSql(this.table);
  }
  listTaskGroups(pin?: { queue?: string; name?: string }) {
    return listTaskGroups(this.db, this.table, pin);
  }
  countGroups(options: { groups: readonly TaskGroup[] | undefined; exactLimit: number; sampleRows?: number }) {
    return countGroups(this.db, this.table, options);
  }
  listTasks(filter: TaskFilter, page: PageRequest, groups: readonly TaskGroup[] | undefined) {
    return listTasks(this.db, this.table, filter, page, groups);
  }
  recentWorkers(windowSeconds: number, limit?: number) {
    return recentWorkers(this.db, this.table, windowSeconds, limit);
  }
  stuckTasks(unpublishedGraceSeconds: number) {
    return stuckTasks(this.db, this.table, unpublishedGraceSeconds);
  }
  finishedPerMinute() {
    return finishedPerMinute(this.db, this.table);
  }

  defaultLockKey(): number {
    return cleanerLockKey(this.table);
  }
  leaderLock(key: number, timing: ElectionTiming, logger: Logger): LeaderLock {
    if (!this.pool) throw new Error("the leader lock needs a store with a pool of its own (openStore), not one bound to a Prisma client");
    return new NamedLockLeaderLock(this.pool.url, { key, database: this.table.schema }, logger, timing);
  }
  leaderHolder(key: number) {
    return namedLockHolder(this.db, { key, database: this.table.schema });
  }

  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    const { db } = this;
    if (!db.transaction) return Promise.reject(new Error("this store is bound to a transaction already and cannot open another"));
    return db.transaction((tx) => fn(new MysqlStore(tx, this.table)));
  }

  /** Nothing to ready in an app's client: its session settings are set per transaction (see db.ts). */
  async prepare() {
    return {};
  }

  /** A failed COMMIT leaves nothing behind here: the server ends the transaction itself. */
  async afterFailedTransaction(): Promise<void> {}

  through(prisma: unknown): Store {
    if (!isPrismaRawClient(prisma)) throw new TypeError("through() takes a Prisma client or transaction client");
    return new MysqlStore(prismaDb(prisma), this.table);
  }

  async check(): Promise<StoreProblem | undefined> {
    try {
      return serverVersionProblem(await checkTable(this.db, this.table));
    } catch (error) {
      return classifyMysqlError(error);
    }
  }

  classify(error: unknown): StoreProblem {
    return classifyMysqlError(error);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
