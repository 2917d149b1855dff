// The Store on PostgreSQL: each operation is one SQL unit of ./sql or ./dashboard-sql, run through a Db (a pg pool
// of the store's own, or an app's Prisma client).

import type { Logger } from "../../logger.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { Store } from "../../store/store.js";
import { UnitStore, type StoreUnits } from "../../store/unit-store.js";
import type { StoreProblem } from "../../store/store-problem.js";
import { countGroups } from "./dashboard-sql/count-groups.js";
import { browseIndexSql, hasBrowseIndex } from "./dashboard-sql/browse-index.js";
import { countTasksUpTo } from "./dashboard-sql/table-size.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { recentWorkers } from "./dashboard-sql/recent-workers.js";
import { stuckTasks } from "./dashboard-sql/stuck-tasks.js";
import { findTask } from "./dashboard-sql/task-detail.js";
import { listTaskGroups } from "./dashboard-sql/task-groups.js";
import { finishedPerMinute } from "./dashboard-sql/throughput.js";
import type { Db } from "./db.js";
import { classifyPgError, serverVersionProblem } from "./errors.js";
import { insertRequest } from "./insert-request.js";
import { pgNotifications } from "./notifications.js";
import { AdvisoryLeaderLock } from "./leader-lock.js";
import type { PgDb } from "./pg-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { cleanerLockKey, leaderLockHolder } from "./sql/advisory-lock.js";
import { claimDueTasks } from "./sql/claim-due-tasks.js";
import { claimTasksByIds } from "./sql/claim-tasks.js";
import { completeTasks } from "./sql/complete-tasks.js";
import { extendLeases } from "./sql/extend-leases.js";
import { failTasks } from "./sql/fail-tasks.js";
import { findStaleWakeups, queuesWithStaleWakeups } from "./sql/find-stale-wakeups.js";
import { findUnpublished } from "./sql/find-unpublished.js";
import { selectTasksByKeys } from "./sql/insert-tasks.js";
import { markPublished, markUnpublished } from "./sql/mark-published.js";
import { cancelTask, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { pruneTasks } from "./sql/prune-tasks.js";
import { countTasks, pendingAges } from "./sql/queue-stats.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { releaseTasks } from "./sql/release-tasks.js";
import { checkTable } from "./sql/check-table.js";
import type { PgTable } from "./table.js";

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<Db, PgTable> = {
  insertTasks: insertRequest,
  tasksByKeys: selectTasksByKeys,
  claimByIds: claimTasksByIds,
  claimDue: claimDueTasks,
  complete: completeTasks,
  fail: failTasks,
  extendLeases,
  release: releaseTasks,
  findExpiredLeases,
  holdExpiredLease,
  requeueExpired,
  abandonExpired,
  findUnpublished,
  queuesWithStaleWakeups,
  findStaleWakeups,
  markPublished,
  markUnpublished,
  prune: pruneTasks,
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
};

export class PostgresStore extends UnitStore<Db, PgTable> implements Store {
  readonly dialect = "postgresql";
  readonly displayName = "PostgreSQL";
  readonly wakeupIdentity = undefined;
  readonly notifications;

  /** `pool`: the store's own pool (closed by close()); undefined when `db` is an app's Prisma client or a transaction. */
  constructor(
    db: Db,
    table: PgTable,
    private readonly pool?: PgDb,
  ) {
    super(UNITS, db, table);
    this.notifications = pgNotifications(db, pool?.url);
  }





  async now(): Promise<Date> {
    const rows = await this.db.query<{ now: Date }>("SELECT now() AS now", []);
    const now = rows[0]?.now;
    return now instanceof Date ? now : new Date(now ?? Date.now());
  }
  countTasks() {
    return countTasks(this.db, this.table);
  }
  browseIndexAdvice() {
    return browseIndexSql(this.table);
  }

  defaultLockKey(): number {
    return cleanerLockKey(this.table);
  }
  leaderLock(key: number, timing: ElectionTiming, logger: Logger): LeaderLock {
    if (!this.pool) throw new Error("the leader lock needs a store with a pool of its own (openStore), not one bound to a Prisma client");
    return new AdvisoryLeaderLock({ url: this.pool.url }, key, logger, timing);
  }
  leaderHolder(key: number) {
    return leaderLockHolder(this.db, key);
  }

  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    const { db } = this;
    if (!db.transaction) return Promise.reject(new Error("this store is bound to a transaction already and cannot open another"));
    return db.transaction((tx) => fn(new PostgresStore(tx, this.table)));
  }

  async prepare() {
    return {};
  }

  readonly sharedConnection = false;
  async endFailedTransaction(): Promise<void> {}

  through(prisma: unknown): Store {
    if (!isPrismaRawClient(prisma)) throw new TypeError("through() takes a Prisma client or transaction client");
    return new PostgresStore(prismaDb(prisma), this.table);
  }

  async check(): Promise<StoreProblem | undefined> {
    try {
      const { versionNum, version, banner } = await checkTable(this.db, this.table);
      return serverVersionProblem(versionNum, version, banner);
    } catch (error) {
      return classifyPgError(error);
    }
  }

  classify(error: unknown): StoreProblem {
    return classifyPgError(error);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
