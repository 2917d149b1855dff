// A dialect: one database family behind the store seam. It recognises its URLs and Prisma providers, opens a store
// on its own driver, binds a store to an app's Prisma client, names its shipped model and migrations, and applies them.

import type { MigrationLedger, MigrationLedgerOptions } from "../migrate/migration-ledger.js";
import type { Store } from "./store.js";
import type { TaskTable } from "./task-table.js";

/** How a process opens its own connections (workers, cleaners, the CLI, the dashboard). */
export interface OpenStoreOptions {
  table: TaskTable;
  /** Most connections to open. */
  max?: number;
  /** How the connections introduce themselves to the server (PostgreSQL: application_name). */
  applicationName?: string;
  /** Prepare the frequent statements once per connection, where the driver can. Default true. */
  preparedStatements?: boolean;
  /** PostgreSQL: a direct URL for what needs a session of its own (leader lock, LISTEN), when the URL is a pooler's. */
  directUrl?: string;
  /** Give up opening a connection after this long, in ms. */
  connectTimeoutMs?: number;
  /** Client-side limit on one statement, in ms. */
  queryTimeoutMs?: number;
  /** Server-side limit on one statement, in ms, where the dialect can set one (the dashboard's pool). */
  statementTimeoutMs?: number;
  /** SQLite: how long a statement waits for another connection's write lock, in ms. */
  busyTimeoutMs?: number;
}

/** How workers are woken when no broker is configured: the dialect's own notifications, in-process delivery, or polling. */
export type WakeupsWithoutBroker = "notify" | "in-process" | "polling";

/** What a dialect can do that another may not. Code outside src/dialects/ asks these, never a dialect's name. */
export interface DialectCapabilities {
  /** Database notifications (PostgreSQL LISTEN/NOTIFY): its stores have `notifications`, and a worker may LISTEN on `listenUrl`. */
  readonly notifications: boolean;
  /** Wake-ups delivered inside one process to workers on the same database, right after the commit (store.wakeupIdentity). */
  readonly inProcessWakeups: boolean;
  /** How workers are woken without a broker; `task-runner init` and the defaults of every part follow it. */
  readonly wakeupsWithoutBroker: WakeupsWithoutBroker;
  /**
   * The store's own connection can commit without waiting for the disk flush while every other session stays durable
   * (Store.withAsyncCommit): PostgreSQL per transaction. Not MySQL/MariaDB, whose only such setting
   * (innodb_flush_log_at_trx_commit) is global to the server. Not SQLite, where there is nothing to gain: better-sqlite3
   * opens a WAL file with synchronous = NORMAL, so every commit already returns before any fsync (a process crash loses
   * none; a power loss or OS crash can undo the last ones, the app's own commits included).
   */
  readonly asyncCommit: boolean;
}

/** One database family. */
export interface Dialect {
  /** The name used in options and messages: "postgresql". */
  readonly name: string;
  /** The name for people: "PostgreSQL". */
  readonly displayName: string;
  /** An example URL, for error messages. */
  readonly urlExample: string;
  /** Prisma datasource providers this dialect serves. */
  readonly prismaProviders: readonly string[];
  /** Where the shipped Prisma model and SQL migrations live, relative to the package root. */
  readonly schemaFiles: { model: string; migrations: string };
  /** The entries of package.json `files` that ship this dialect's model and migrations. */
  readonly packageFiles: readonly string[];
  /** What it can do, for the parts that differ by database. */
  readonly capabilities: DialectCapabilities;
  /** True when `url` is one of this dialect's connection URLs. */
  matchesUrl(url: string): boolean;
  /** A store on connections of its own; nothing connects before the first operation. */
  openStore(url: string, options: OpenStoreOptions): Store;
  /** A store whose operations run through `client`, a Prisma client or transaction client of this dialect; `option` names where it came from, for the error. */
  prismaStore(client: unknown, table: TaskTable, option: string): Store;
  /** Prisma Migrate's `_prisma_migrations` and the running of migration scripts on `url`, for `task-runner migrate`. */
  openMigrationLedger(url: string, options?: MigrationLedgerOptions): MigrationLedger;
  /** Why the app's Prisma driver adapter (by its adapterName) cannot serve the queue, or undefined when it can. */
  adapterProblem?(adapterName: string): string | undefined;
}
