// The connection seam of every dialect: each SQL unit runs its statements through a Db. A dialect implements it twice,
// on a connection of the store's own (own-db.ts: a pool, a file) and on an app's Prisma client (prisma-db.ts).

/** A statement as a request: through Prisma it is not sent until awaited, so it can join a batch `$transaction([...])`. */
export type DbRequest = PromiseLike<unknown> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };

export interface Db {
  /**
   * Runs one parameterised statement and returns its rows (none for a statement without a result). `name`, given for
   * the worker's hot statements, is a stable name for `sql`: a driver may prepare it once per connection under it (pg
   * does) or ignore it.
   */
  query<Row = Record<string, unknown>>(sql: string, values: readonly unknown[], name?: string): Promise<Row[]>;
  /** The statement as a request: through Prisma it is not sent until awaited; through a connection of its own it is sent now. */
  request(sql: string, values: readonly unknown[]): DbRequest;
  /**
   * Runs `fn` inside one transaction, on a Db of the same kind bound to it. Absent when the Db is a transaction
   * already (a Prisma transaction client, or the `tx` of another transaction): statements then join that one.
   */
  transaction?<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}

/** A Db whose writes also say how many rows they changed, for SQL without UPDATE … RETURNING (MySQL). */
export interface CountingDb extends Db {
  /** Runs one INSERT, UPDATE or DELETE and returns how many rows it changed. */
  write(sql: string, values: readonly unknown[]): Promise<number>;
  transaction?<T>(fn: (tx: CountingDb) => Promise<T>): Promise<T>;
}

/** A Db the store opened itself (a pool, a file): closed with the store. */
export interface OwnDb extends Db {
  close(): Promise<void> | void;
}

/**
 * Runs `fn` atomically: in a transaction of its own, or in the transaction `db` already is. Without RETURNING, a write
 * that must say which rows it changed locks them first (SELECT … FOR UPDATE), then updates exactly those, in one
 * transaction.
 */
export function atomically<D extends Db, T>(db: D, fn: (tx: D) => Promise<T>): Promise<T> {
  // A Db's transaction hands `fn` a Db of its own kind (a CountingDb's, a CountingDb).
  return db.transaction ? db.transaction((tx) => fn(tx as D)) : fn(db);
}
