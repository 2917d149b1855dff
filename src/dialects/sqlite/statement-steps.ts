// A SQLite unit of several statements written once as a generator of statements, run in one transaction: synchronously
// on the store's own connection, so the file's write lock is never held across a turn of the event loop, else in turn.

import type { Db } from "../../store/db.js";

/** One statement of a unit: its SQL with positional parameters; the statement's rows come back as the yield's value. */
export type Statement = readonly [sql: string, params: readonly unknown[]];

/** A unit's statements, in order; what it returns is the unit's result. */
export type Steps<T> = Generator<Statement, T, unknown[]>;

/** A Db that runs a whole transaction synchronously (the store's own better-sqlite3 connection). */
export interface SyncTransactionDb extends Db {
  /**
   * Waits for the connection to be free, then runs BEGIN IMMEDIATE, every statement of `steps` and COMMIT without
   * yielding to the event loop in between (ROLLBACK when a statement throws).
   */
  transactionSync<T>(steps: Steps<T>): Promise<T>;
}

function isSyncTransactionDb(db: Db): db is SyncTransactionDb {
  return typeof (db as Partial<SyncTransactionDb>).transactionSync === "function";
}

/**
 * Runs `steps` atomically. On the store's own connection the write lock is taken and released within one synchronous
 * run: a better-sqlite3 client of the app in the same process waits for that lock by sleeping inside the event loop,
 * so a lock held across an `await` would wait for that sleep to end, and the two would stall each other for the whole
 * busy timeout. Through an app's Prisma client (or inside a transaction already) the statements run one after another.
 */
export async function runSteps<T>(db: Db, steps: Steps<T>): Promise<T> {
  if (isSyncTransactionDb(db)) return db.transactionSync(steps);
  const run = async (tx: Db): Promise<T> => {
    let next = steps.next();
    while (!next.done) {
      const [sql, params] = next.value;
      next = steps.next(await tx.query(sql, params));
    }
    return next.value;
  };
  return db.transaction ? db.transaction(run) : run(db);
}
