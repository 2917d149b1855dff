// The PostgreSQL dialect's connection seam: every SQL unit runs its statement through a Db. A pg pool (pg-db.ts) and
// an app's Prisma client (prisma-db.ts) are its two implementations; nothing outside this folder sees it.

/**
 * Runs one parameterised statement and returns its rows. `name`, given for the worker's hot statements, is a stable
 * name for `text`: a driver may prepare the statement once per connection under it (pg does) or ignore it (Prisma).
 */
export interface Db {
  query<Row = Record<string, unknown>>(text: string, values: readonly unknown[], name?: string): Promise<Row[]>;
  /**
   * The statement as a request: through Prisma it is not sent until awaited, so it can join a batch
   * `$transaction([...])`; through a pool it is sent now.
   */
  request(text: string, values: readonly unknown[]): PromiseLike<unknown> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };
  /** Runs `fn` inside one transaction; absent when the Db cannot open one (a Prisma transaction client). */
  transaction?<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}
