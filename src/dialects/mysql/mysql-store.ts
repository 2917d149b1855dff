// The Store on MySQL 8 and MariaDB 10.6+: each operation is one SQL unit of ./sql or ./dashboard-sql, run through a
// Db (a mariadb pool of the store's own, or an app's Prisma client on @prisma/adapter-mariadb).

import type { Logger } from "../../logger.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { StoreProblem } from "../../store/store-problem.js";
import type { Store } from "../../store/store.js";
import { UnitStore, type StoreUnits } from "../../store/unit-store.js";
import { browseIndexSql, hasBrowseIndex } from "./dashboard-sql/browse-index.js";
import { countTasksUpTo } from "./dashboard-sql/table-size.js";
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

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<Db, MysqlTable> = {
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

export class MysqlStore extends UnitStore<Db, MysqlTable> implements Store {
  readonly dialect = "mysql";
  readonly displayName = "MySQL";
  /** No in-process wake-ups: a broker or polling, as on PostgreSQL. */
  /** No LISTEN/NOTIFY here: wake-ups come from RabbitMQ, in-process delivery or polling. */
  readonly notifications = undefined;
  readonly wakeupIdentity = undefined;

  /** `pool`: the store's own pool (closed by close()); undefined when `db` is an app's Prisma client or a transaction. */
  constructor(
    db: Db,
    table: MysqlTable,
    private readonly pool?: PoolDb,
  ) {
    super(UNITS, db, table);
  }





  async now(): Promise<Date> {
    const rows = await this.db.query<{ db_now: string }>(`SELECT ${timeText(NOW)} AS db_now`, []);
    return fromTimeText(rows[0]!.db_now);
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
  readonly sharedConnection = false;
  async endFailedTransaction(): Promise<void> {}

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
