// The mariadb pool implementation of the MySQL connection seam, for the worker, the cleaner, the CLI and the
// dashboard's own pool. The driver is loaded when the store opens and the pool made on the first statement;
// transaction() takes one connection for SET TRANSACTION … READ COMMITTED, BEGIN … COMMIT.

import type { Pool, PoolConnection } from "mariadb";
import { poolConfig, type MysqlPoolOptions } from "./connection-options.js";
import type { CountingDb } from "../../store/db.js";
import { mariadbDriver, type MariadbModule } from "./driver.js";
import { statementLimiter } from "./server-version.js";
import { TaskStoreClosedError } from "../../errors.js";
import { redactUrl } from "../../redact-url.js";

/** A pool wrapped as a CountingDb, plus close(). */
export interface MysqlOwnDb extends CountingDb {
  /** The URL the pool connects to (the leader lock opens its own session on it). */
  readonly url: string;
  transaction<T>(fn: (tx: CountingDb) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The pool's options. It never prepares statements on the server (the store's preparedStatements option does nothing
 * here): the id lists of a batch make a new statement text for each batch size, and the server caps prepared
 * statements for all its sessions together (max_prepared_stmt_count, 16,382 by default), which a few workers with
 * full per-connection caches would reach. Values are escaped into the text by the driver, as Oban's MySQL engine does.
 */
interface OwnDbOptions extends MysqlPoolOptions {
  /**
   * Server-side limit on one statement, in ms. Default none. MariaDB applies it to every statement
   * (SET STATEMENT max_statement_time … FOR), MySQL to SELECTs only (the MAX_EXECUTION_TIME hint): a write is never cut.
   */
  statementTimeoutMs?: number;
}

/**
 * The transaction level of every transaction of the pool. Set per transaction (it goes out with BEGIN, in the same
 * round trip), not per session through the driver's initSql: mariadb before 3.5.1 leaves an unhandled promise
 * rejection, which ends a Node process, when a connection breaks between login and its init statements.
 */
const READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

interface Opened {
  pool: Pool;
  /** Rewrites a statement to carry the statement limit, when there is one. */
  limit: (sql: string) => string;
}

type Runner = Pick<PoolConnection, "query">;

/** A CountingDb on a pool of its own to `url`; nothing connects before the first statement. */
export function ownDb(url: string, options: OwnDbOptions = {}): MysqlOwnDb {
  // Checked now, so a bad URL or a missing driver fails where the store is opened, not at the first statement.
  poolConfig(url, options);
  const mariadb = mariadbDriver();
  let opening: Promise<Opened> | undefined;
  let closed = false;
  const open = (): Promise<Opened> => {
    if (closed) return Promise.reject(new TaskStoreClosedError(`the MySQL store on ${redactUrl(url)}`));
    opening ??= openPool(mariadb, url, options).catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  const run = async (runner: Runner, sql: string, values: readonly unknown[]) => {
    const { limit } = await open();
    return runner.query<unknown>(limit(sql), values);
  };
  const dbOf = (runner: () => Promise<Runner>): CountingDb => ({
    query: async <Row>(sql: string, values: readonly unknown[]) => rowsOf<Row>(await run(await runner(), sql, values)),
    write: async (sql: string, values: readonly unknown[]) => affectedRows(await run(await runner(), sql, values)),
    request: (sql: string, values: readonly unknown[]) =>
      runner()
        .then((r) => run(r, sql, values))
        .then(affectedRows),
  });
  return {
    ...dbOf(async () => (await open()).pool),
    url,
    async transaction<T>(fn: (tx: CountingDb) => Promise<T>): Promise<T> {
      const connection = await (await open()).pool.getConnection();
      let broken = false;
      try {
        // Both go out at once (the driver pipelines): one round trip.
        await Promise.all([connection.query(READ_COMMITTED), connection.beginTransaction()]);
        const result = await fn(dbOf(async () => connection));
        await connection.commit();
        return result;
      } catch (error) {
        await connection.rollback().catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        if (broken) connection.destroy();
        else await connection.release();
      }
    },
    async close() {
      closed = true;
      const pending = opening;
      opening = undefined;
      const opened = await pending?.catch(() => undefined);
      await opened?.pool.end();
    },
  };
}

async function openPool(mariadb: MariadbModule, url: string, options: OwnDbOptions): Promise<Opened> {
  // One connection first, outside the pool: a wrong password, database or host fails here at once with the server's own
  // error (the pool would retry until its acquire timeout). It also tells which server answers, for the statement limit,
  // which MySQL and MariaDB set differently.
  const probe = await mariadb.createConnection(poolConfig(url, options));
  let limit = (sql: string) => sql;
  try {
    if (options.statementTimeoutMs !== undefined) {
      const rows = await probe.query<Array<{ version: string }>>("SELECT VERSION() AS version");
      limit = statementLimiter(rows[0]!.version, options.statementTimeoutMs);
    }
  } finally {
    await probe.end().catch(() => probe.destroy());
  }
  return { pool: mariadb.createPool(poolConfig(url, options)), limit };
}

function rowsOf<Row>(result: unknown): Row[] {
  return Array.isArray(result) ? (result as Row[]) : [];
}

function affectedRows(result: unknown): number {
  const affected = (result as { affectedRows?: unknown } | null)?.affectedRows;
  return typeof affected === "number" ? affected : Number(affected ?? 0);
}
