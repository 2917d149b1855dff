// The pg implementation of the database seam, used by the worker, the cleaner and the CLI.
// A pool for statements; transaction() checks out one client for BEGIN … COMMIT.

import pg from "pg";
import type { Db, TransactionalDb } from "./driver.js";

/** A pg Pool wrapped as a TransactionalDb, plus close(). */
export interface PgDb extends TransactionalDb {
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/** Opens a pool on `connectionString`. `max` bounds its connections (default 10). */
export function pgDb(connectionString: string, options: { max?: number; applicationName?: string } = {}): PgDb {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "prisma-task-queue",
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener that kills the process.
  pool.on("error", () => {});
  return {
    pool,
    query: async <Row>(text: string, values: readonly unknown[]) =>
      (await pool.query(text, values as unknown[])).rows as Row[],
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await fn({
          query: async <Row>(text: string, values: readonly unknown[]) =>
            (await client.query(text, values as unknown[])).rows as Row[],
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
