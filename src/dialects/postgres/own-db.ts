// The store's own PostgreSQL connection (pg), for the worker, the cleaner, the CLI and the dashboard's own pool: a pool
// for statements; transaction() checks out one client for BEGIN … COMMIT.

import { createHash } from "node:crypto";
import type pg from "pg";
import type { Db } from "../../store/db.js";
import { pgDriver } from "./driver.js";
import { poolerUrl } from "./pooler-url.js";
import { fastTypes } from "./timestamp-parser.js";

/** A pg Pool wrapped as a Db, plus close(). */
export interface PgOwnDb extends Db {
  readonly pool: pg.Pool;
  /** The URL the pool connects to. */
  readonly url: string;
  /**
   * Where a session of its own may be opened (the cleaners' leader lock, a worker's LISTEN): `directUrl`, else the
   * pool's URL, unless that goes through PgBouncer in transaction mode (`pgbouncer=true`): then undefined.
   */
  readonly sessionUrl: string | undefined;
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * The same pool, every statement (and transaction) in a transaction of its own whose COMMIT does not wait for the
   * WAL flush: `SET LOCAL synchronous_commit = off`. Local to the transaction, so a pooler in transaction mode never
   * carries it to another client's session.
   */
  readonly asyncCommit: Db;
  close(): Promise<void>;
}

/**
 * Opens a transaction whose COMMIT returns before the WAL reaches the disk (one round trip for both statements). A
 * server crash (not a client's) within about 3 × wal_writer_delay (200 ms by default) of the commit can lose it.
 */
const ASYNC_COMMIT_BEGIN = "BEGIN; SET LOCAL synchronous_commit = off";

/** Options of ownDb(). */
interface OwnDbOptions {
  /** Most connections the pool opens. Default 10. */
  max?: number;
  /** Shown in pg_stat_activity. Default "prisma-task-queue". */
  applicationName?: string;
  /** Give up opening a connection after this long, in ms. Default 10000; without a limit a dead server hangs the caller. */
  connectTimeoutMs?: number;
  /**
   * Prepare the statements the caller names, once per connection, so the server parses and plans them once. Default
   * true, and false when the URL says `pgbouncer=true`. Turn it off behind a pooler that cannot keep prepared
   * statements (PgBouncer before 1.21 in transaction mode).
   */
  preparedStatements?: boolean;
  /** A direct (or session-pooled) URL of the same database, for what needs a session of its own. Default: the pool's URL. */
  directUrl?: string;
  /**
   * Client-side limit on one statement, in ms. Default 60000. It also ends the wait on a half-open connection (one whose
   * peer vanished without a reset), which TCP alone may not notice for minutes.
   */
  queryTimeoutMs?: number;
}

/**
 * Opens a pool on `connectionString`, with TCP keep-alive and the time limits of OwnDbOptions. Nothing connects yet;
 * a missing pg package fails here, where the store is opened.
 */
export function ownDb(givenUrl: string, options: OwnDbOptions = {}): PgOwnDb {
  const { url: connectionString, transactionPooled } = poolerUrl(givenUrl);
  const pool = new (pgDriver().Pool)({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "prisma-task-queue",
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    query_timeout: options.queryTimeoutMs ?? 60_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: fastTypes,
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener that kills the process.
  pool.on("error", () => {});
  const prepared = options.preparedStatements ?? !transactionPooled;
  const names = new StatementNames();
  const config = (text: string, values: readonly unknown[], name: string | undefined) =>
    prepared && name ? { name: names.of(name, text), text, values: values as unknown[] } : { text, values: values as unknown[] };
  const query = async <Row>(text: string, values: readonly unknown[], name?: string) => (await pool.query(config(text, values, name))).rows as Row[];
  /** Runs `fn` between `begin` (one round trip, however many statements) and COMMIT on one checked-out client. */
  async function inTransaction<T>(fn: (tx: Db) => Promise<T>, begin: string): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out client whose connection breaks between two statements emits 'error' with no listener of the
    // pool's: without this one that kills the process. The next statement fails, and the client is discarded.
    const onError = (error: Error) => void (broken = error);
    client.on("error", onError);
    try {
      await client.query(begin);
      const txQuery = async <Row>(text: string, values: readonly unknown[], name?: string) => (await client.query(config(text, values, name))).rows as Row[];
      const result = await fn({ query: txQuery, request: (text, values) => txQuery(text, values) });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  }
  return {
    pool,
    url: connectionString,
    sessionUrl: options.directUrl ? poolerUrl(options.directUrl).url : transactionPooled ? undefined : connectionString,
    query,
    request: (text: string, values: readonly unknown[]) => query(text, values),
    transaction: (fn) => inTransaction(fn, "BEGIN"),
    asyncCommit: {
      query: <Row>(text: string, values: readonly unknown[], name?: string) => inTransaction((tx) => tx.query<Row>(text, values, name), ASYNC_COMMIT_BEGIN),
      request: (text, values) => inTransaction((tx) => tx.query(text, values), ASYNC_COMMIT_BEGIN),
      transaction: (fn) => inTransaction(fn, ASYNC_COMMIT_BEGIN),
    },
    close: () => pool.end(),
  };
}

/**
 * Server-side names of prepared statements: the caller's name plus a hash of the text, so two texts under one name
 * (two task tables on one server, say) never collide on a connection.
 */
class StatementNames {
  private readonly byText = new Map<string, string>();

  of(name: string, text: string): string {
    let full = this.byText.get(text);
    if (full === undefined) {
      full = `${name}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`;
      this.byText.set(text, full);
    }
    return full;
  }
}
