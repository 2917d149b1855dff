// The MySQL dialect's connection seam: every SQL unit runs its statements through a Db. A mariadb pool (pool-db.ts) and
// an app's Prisma client (prisma-db.ts) are its two implementations; nothing outside this folder sees it.

/** A Prisma raw request that is not sent until awaited, so it can join a batch `$transaction([...])`. */
export type DbRequest = PromiseLike<unknown> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };

export interface Db {
  /** Runs one statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, values: readonly unknown[]): Promise<Row[]>;
  /** Runs one INSERT, UPDATE or DELETE and returns how many rows it changed. */
  write(sql: string, values: readonly unknown[]): Promise<number>;
  /** The statement as a request: through Prisma it is not sent until awaited; through a pool it is sent now. */
  request(sql: string, values: readonly unknown[]): DbRequest;
  /**
   * Runs `fn` inside one transaction (READ COMMITTED on the store's own pool). Absent when the Db is a transaction
   * already (a Prisma transaction client, or the `tx` of another transaction): statements then join that one.
   */
  transaction?<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}

/**
 * Runs `fn` atomically: in a transaction of its own, or in the transaction `db` already is. MySQL has no
 * UPDATE … RETURNING, so every write that must say which rows it changed locks them first (SELECT … FOR UPDATE), then
 * updates exactly those, and needs both statements in one transaction.
 */
export function atomically<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction ? db.transaction(fn) : fn(db);
}
