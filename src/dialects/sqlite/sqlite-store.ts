// The Store on SQLite: each operation is one SQL unit of ./sql or ./dashboard-sql, run through a SqliteDb (a
// better-sqlite3 connection of the store's own, or an app's Prisma client on @prisma/adapter-better-sqlite3).

import { realpathSync } from "node:fs";
import type { Logger } from "../../logger.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { PrepareReport, Store } from "../../store/store.js";
import { UnitStore, type StoreUnits } from "../../store/unit-store.js";
import type { StoreProblem } from "../../store/store-problem.js";
import { NOW, toDate } from "./clock.js";
import { finishedPerMinute, recentWorkers, stuckTasks } from "./dashboard-sql/activity.js";
import { listTasks } from "./dashboard-sql/list-tasks.js";
import { browseIndexSql, countGroups, countTasks, countTasksUpTo, findTask, hasBrowseIndex, listTaskGroups, pendingAges } from "./dashboard-sql/views.js";
import type { SqliteDb } from "./db.js";
import { classifySqliteError } from "./errors.js";
import type { SqliteFileDb } from "./file-db.js";
import { insertRequest } from "./insert-request.js";
import { LeaseLeaderLock } from "./leader-lock.js";
import { isPrismaRawClient, prismaSqliteDb } from "./prisma-db.js";
import { checkTables } from "./sql/check-table.js";
import { prepareClient } from "./sql/prepare-client.js";
import { claimDueTasks, claimTasksByIds } from "./sql/claim-tasks.js";
import { selectTasksByKeys } from "./sql/insert-tasks.js";
import { leaseHolder } from "./sql/leader-lease.js";
import { cancelTask, pruneTasks, retryDeadTasks, retryTask, runTaskNow } from "./sql/operator-actions.js";
import { completeTasks, extendLeases, failTasks, releaseTasks } from "./sql/outcomes.js";
import { abandonExpired, findExpiredLeases, holdExpiredLease, requeueExpired } from "./sql/recover-leases.js";
import { findStaleWakeups, findUnpublished, markPublished, markUnpublished, queuesWithStaleWakeups } from "./sql/wakeups.js";
import type { SqliteTable } from "./table.js";

/** Each unit operation's SQL unit. */
const UNITS: StoreUnits<SqliteDb, SqliteTable> = {
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
  countGroups: (db, table, options) => countGroups(db, table, options.groups),
  listTasks,
  recentWorkers,
  stuckTasks,
  finishedPerMinute,
};

export class SqliteStore extends UnitStore<SqliteDb, SqliteTable> implements Store {
  readonly dialect = "sqlite";
  readonly displayName = "SQLite";

  /** `file`: the store's own connection (closed by close()); undefined when `db` is an app's Prisma client or a transaction. */
  constructor(
    db: SqliteDb,
    table: SqliteTable,
    private readonly file?: SqliteFileDb,
  ) {
    super(UNITS, db, table);
  }

  /** No LISTEN/NOTIFY here: wake-ups come from RabbitMQ, in-process delivery or polling. */
  readonly notifications = undefined;

  get wakeupIdentity(): string | null {
    return this.file ? identityOf(this.file.path, this.table) : null;
  }

  async prepare(): Promise<PrepareReport> {
    if (this.file) return { wakeupIdentity: identityOf(this.file.path, this.table) };
    try {
      const report = await prepareClient(this.db);
      return {
        wakeupIdentity: report.file ? identityOf(report.file, this.table) : undefined,
        workerUrl: report.file ? `file:${report.file}` : undefined,
        problem: report.problem,
        notes: report.notes,
      };
    } catch (error) {
      return { notes: [`could not ready the SQLite client: ${(error as Error).message}`] };
    }
  }

  /** The app's client (on @prisma/adapter-better-sqlite3) runs every statement on one connection. */
  readonly sharedConnection = true;

  async endFailedTransaction(): Promise<void> {
    if (this.file) return; // the store's own connection: its transaction() rolls back itself
    try {
      await this.db.query("ROLLBACK", []);
    } catch (error) {
      if (!isNoTransaction(error)) throw error;
    }
  }

  async now(): Promise<Date> {
    const rows = await this.db.query<{ now: unknown }>(`SELECT ${NOW} AS now`, []);
    return toDate(rows[0]!.now);
  }
  countTasks() {
    return countTasks(this.db, this.table).then((rows) => rows.map((row) => ({ ...row, count: Number(row.count) })));
  }
  browseIndexAdvice() {
    return browseIndexSql(this.table);
  }

  /** The lock key's only use on SQLite is the lease row's name; 1 for every table (each table has its own leaders table). */
  defaultLockKey(): number {
    return 1;
  }
  leaderLock(key: number, timing: ElectionTiming, logger: Logger): LeaderLock {
    return new LeaseLeaderLock(this.db, this.table, key, logger, timing);
  }
  leaderHolder(key: number) {
    return leaseHolder(this.db, this.table, `cleaner:${key}`);
  }

  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    const { db } = this;
    if (!db.transaction) return Promise.reject(new Error("this store is bound to a transaction already and cannot open another"));
    return db.transaction((tx) => fn(new SqliteStore(tx, this.table)));
  }

  through(prisma: unknown): Store {
    if (!isPrismaRawClient(prisma)) throw new TypeError("through() takes a Prisma client or transaction client");
    return new SqliteStore(prismaSqliteDb(prisma), this.table);
  }

  async check(): Promise<StoreProblem | undefined> {
    try {
      return await checkTables(this.db, this.table);
    } catch (error) {
      return classifySqliteError(error);
    }
  }

  classify(error: unknown): StoreProblem {
    return classifySqliteError(error);
  }

  async close(): Promise<void> {
    this.file?.close();
  }
}

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
