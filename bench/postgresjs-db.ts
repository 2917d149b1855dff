// The worker's own PostgreSQL sessions over postgres.js (the `postgres` package) instead of pg, to measure a driver
// that pipelines: the same Db as src/dialects/postgres/own-db.ts (query, request, transaction, asyncCommit, close),
// and a PostgreSQL store over it for the bench's worker (BENCH_PG_DRIVER, see bench/peers/ours-worker.ts).
//
// Two ways to run a transaction:
// - "begin": postgres.js's own sql.begin(): BEGIN, then the callback's statements, then COMMIT, each awaited in turn
//   (for asyncCommit, SET LOCAL goes out with the first statement): as many round trips as the pg pool.
// - "pipelined": a reserved connection, BEGIN sent without waiting for its answer; a single statement of asyncCommit
//   goes out as BEGIN; SET LOCAL, the statement and COMMIT in one write (one round trip). A failed statement leaves
//   the transaction aborted, and the COMMIT behind it then ends it as a ROLLBACK.

import postgres from "postgres";
import type { Db } from "../src/store/db.js";
import { DialectStore } from "../src/store/dialect-store.js";
import type { Store } from "../src/store/store.js";
import { taskTable } from "../src/store/task-table.js";
import type { PgOwnDb } from "../src/dialects/postgres/own-db.js";
import { poolerUrl } from "../src/dialects/postgres/pooler-url.js";
import { postgresParts } from "../src/dialects/postgres/store.js";
import { pgTable } from "../src/dialects/postgres/table.js";
import { parseTimestamptz } from "../src/dialects/postgres/timestamp-parser.js";

/** How transactions are sent: see the head of this file. */
export type TransactionMode = "begin" | "pipelined";

/** Options of postgresJsDb(). */
export interface PostgresJsDbOptions {
  /** Most connections. The worker's pool uses WORKER_POOL.max. */
  max: number;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  transactions: TransactionMode;
}

/** The Db over postgres.js, shaped as the pg pool's own Db (without its `pool`). */
export type PostgresJsOwnDb = Omit<PgOwnDb, "pool"> & { readonly sql: postgres.Sql };

const SET_ASYNC_COMMIT = "SET LOCAL synchronous_commit = off";
const ASYNC_COMMIT_BEGIN = `BEGIN; ${SET_ASYNC_COMMIT}`;

const ignore = () => {};

/** What a Db needs of a postgres.js pool, transaction or reserved connection. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the pool's type parameter (its custom types) does not matter here
type Statements = Pick<postgres.Sql<any>, "unsafe">;

/** JSON parameters: a string is already JSON text (what the SQL units pass), anything else is stringified as pg does. */
const jsonText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * Opens a postgres.js pool on `givenUrl`. Statements are prepared (named, once per connection) unless the URL says
 * `pgbouncer=true`: PgBouncer in transaction mode cannot keep them.
 */
export function postgresJsDb(givenUrl: string, options: PostgresJsDbOptions): PostgresJsOwnDb {
  const { url, transactionPooled } = poolerUrl(givenUrl);
  const prepare = !transactionPooled;
  const sql = postgres(url, {
    max: options.max,
    prepare,
    connect_timeout: 10,
    keep_alive: 10,
    onnotice: ignore,
    connection: { application_name: options.applicationName },
    types: {
      // timestamptz through the same fast reader as the pg pool; Dates out as ISO text.
      timestamptz: {
        to: 1184,
        from: [1184],
        serialize: (value: unknown) => (value instanceof Date ? value : new Date(value as string)).toISOString(),
        parse: parseTimestamptz,
      },
      json: { to: 114, from: [114], serialize: jsonText, parse: (text: string) => JSON.parse(text) as unknown },
      jsonb: { to: 3802, from: [3802], serialize: jsonText, parse: (text: string) => JSON.parse(text) as unknown },
    },
  });

  /** A Db whose statements go through `on` (the pool, or one transaction's connection). */
  const dbOn = (on: Statements) => {
    const query = async <Row>(text: string, values: readonly unknown[]) =>
      (await on.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare })) as unknown as Row[];
    return { query, request: (text: string, values: readonly unknown[]) => query(text, values) } satisfies Db;
  };

  /** sql.begin(): BEGIN awaited, then `fn`, then COMMIT (or ROLLBACK when `fn` throws). */
  const begun = <T>(fn: (tx: Db) => Promise<T>, asyncCommit: boolean): Promise<T> =>
    sql.begin(async (tx) => {
      // Not awaited: it goes out ahead of fn's first statement; a failure fails that statement too.
      if (asyncCommit) tx.unsafe(SET_ASYNC_COMMIT).execute().catch(ignore);
      return fn(dbOn(tx));
    }) as Promise<T>;

  /** A reserved connection: BEGIN written without waiting for it, `fn`'s statements behind it, then COMMIT. */
  async function pipelined<T>(fn: (tx: Db) => Promise<T>, begin: string): Promise<T> {
    const connection = await sql.reserve();
    try {
      const began = connection.unsafe(begin).execute();
      began.catch(ignore);
      let result: T;
      try {
        result = await fn(dbOn(connection));
        await began;
      } catch (error) {
        await connection.unsafe("ROLLBACK").catch(ignore);
        throw error;
      }
      await connection.unsafe("COMMIT");
      return result;
    } finally {
      connection.release();
    }
  }

  /** One statement of asyncCommit in one write: BEGIN; SET LOCAL, the statement, COMMIT. */
  async function pipelinedStatement<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
    const connection = await sql.reserve();
    try {
      const sent = [
        connection.unsafe(ASYNC_COMMIT_BEGIN).execute(),
        connection.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare }).execute(),
        connection.unsafe("COMMIT").execute(),
      ];
      const outcomes: PromiseSettledResult<unknown>[] = await Promise.allSettled(sent);
      for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
      return (outcomes[1] as PromiseFulfilledResult<unknown>).value as Row[];
    } finally {
      connection.release();
    }
  }

  const transaction = <T>(fn: (tx: Db) => Promise<T>) => (options.transactions === "pipelined" ? pipelined(fn, "BEGIN") : begun(fn, false));
  const asyncTransaction = <T>(fn: (tx: Db) => Promise<T>) => (options.transactions === "pipelined" ? pipelined(fn, ASYNC_COMMIT_BEGIN) : begun(fn, true));
  const asyncQuery = <Row>(text: string, values: readonly unknown[]): Promise<Row[]> =>
    options.transactions === "pipelined" ? pipelinedStatement<Row>(text, values) : asyncTransaction((tx) => tx.query<Row>(text, values));

  const pool = dbOn(sql);
  return {
    sql,
    url,
    sessionUrl: transactionPooled ? undefined : url,
    query: pool.query,
    request: pool.request,
    transaction,
    asyncCommit: { query: asyncQuery, request: (text, values) => asyncQuery(text, values), transaction: asyncTransaction },
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * A PostgreSQL store over postgresJsDb(), as openStore() builds one over the pg pool: the same SQL units, leader lock
 * and notifications (LISTEN still opens a pg session of its own, on `sessionUrl`).
 */
export function postgresJsStore(url: string, options: PostgresJsDbOptions & { table?: string }): Store {
  const own = postgresJsDb(url, options);
  // The parts read `sessionUrl` and `asyncCommit` of the own connection, never the pg pool itself.
  return new DialectStore(postgresParts, own, pgTable(taskTable(options.table)), own as unknown as PgOwnDb);
}
