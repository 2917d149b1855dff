// The SQLite dialect's connection seam: every SQL unit runs its statement through a SqliteDb. A better-sqlite3
// connection of the store's own (file-db.ts) and an app's Prisma client (prisma-db.ts) are its two implementations.

/** Runs one statement with positional `?` parameters and returns its rows (none for a statement without a result). */
export interface SqliteDb {
  query<Row = Record<string, unknown>>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /**
   * The statement as a request: through Prisma it is not sent until awaited, so it can join a batch
   * `$transaction([...])`; through the store's own connection it runs now.
   */
  request(sql: string, params: readonly unknown[]): PromiseLike<unknown> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };
  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT; absent when the Db cannot open one (a Prisma transaction client). */
  transaction?<T>(fn: (tx: SqliteDb) => Promise<T>): Promise<T>;
}
