// openStore(): a store of the queue's operations on a database URL, to share one pool between a worker, a cleaner and
// a dashboard in one process (their `store` option). The dialect follows from the URL.

import { openStore as openDialectStore } from "./dialects/index.js";
import type { Store } from "./store/store.js";
import { taskTable } from "./store/task-table.js";

/** Options of openStore(). */
export interface StoreOptions {
  /** The task table. Default "tasks". Must match the Prisma model's @@map. */
  table?: string;
  /** PostgreSQL schema of the table. Default: none, so the connection's search_path decides. */
  schema?: string;
  /** Most connections the pool opens. Default 10. */
  max?: number;
  /** How the connections introduce themselves to the server (PostgreSQL: application_name). Default "prisma-task-queue". */
  applicationName?: string;
  /**
   * Prepare the frequent statements once per connection. Default true, and false when the URL says `pgbouncer=true`.
   * Turn it off behind a pooler that cannot keep prepared statements (PgBouncer before 1.21 in transaction mode).
   */
  preparedStatements?: boolean;
  /**
   * PostgreSQL behind PgBouncer in transaction mode (`pgbouncer=true` in the URL): a direct or session-pooled URL of the
   * same database, for what needs a session of its own: the cleaners' leader lock and a worker's LISTEN. Default: the
   * URL itself, or none behind PgBouncer (then a cleaner refuses to start, naming this option, and workers poll).
   */
  directUrl?: string;
  /**
   * SQLite: how long a statement waits, in all, for the write lock another connection holds, retrying without blocking
   * the event loop, before it fails with SQLITE_BUSY. Default 5000. Shorter fails sooner under a long writer; the
   * worker retries its claims and outcomes either way. Ignored by other databases.
   */
  busyTimeoutMs?: number;
}

/**
 * Opens a store on `databaseUrl` (postgresql://…). Nothing connects before the first operation; close() closes the
 * pool. Throws TaskQueueConfigError for a URL of no supported database or a bad table name.
 */
export function openStore(databaseUrl: string, options: StoreOptions = {}): Store {
  return openDialectStore(databaseUrl, {
    table: taskTable(options.table, options.schema),
    max: options.max,
    applicationName: options.applicationName,
    preparedStatements: options.preparedStatements,
    directUrl: options.directUrl,
    busyTimeoutMs: options.busyTimeoutMs,
  });
}
