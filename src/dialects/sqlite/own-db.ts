// The store's own SQLite connection (better-sqlite3, loaded when the store opens; connected on first use): WAL journal,
// prepared statements cached, and SQLITE_BUSY waited out without blocking the event loop. better-sqlite3 is
// synchronous, so its own busy handler would sleep inside the event loop: with a worker in the app's process, that
// sleep would stall the very Prisma transaction that holds the lock. The connection's busy timeout is therefore 0 and a
// busy statement is retried after an asynchronous pause, until busyTimeoutMs has passed; for the same reason a
// transaction never holds the write lock across a turn of the event loop.

import type { Db } from "../../store/db.js";
import type { Steps, SyncTransactionDb } from "./statement-steps.js";
import { betterSqlite3, type DatabaseConstructor, type SqliteDatabase, type SqliteStatement } from "./driver.js";
import { TaskStoreClosedError } from "../../errors.js";

interface SqliteFileOptions {
  /** How long a statement waits for the write lock in all, retrying, before SQLITE_BUSY reaches the caller. Default 5000. */
  busyTimeoutMs?: number;
}

const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 50;
const CACHED_STATEMENTS = 200;

/** True when `error` is SQLITE_BUSY (or one of its extended codes): another connection holds the write lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export class SqliteFileDb implements SyncTransactionDb {
  /** The driver, loaded with the store: a missing better-sqlite3 fails where the store is opened. */
  private readonly Database: DatabaseConstructor = betterSqlite3();
  private database: SqliteDatabase | undefined;
  private readonly statements = new Map<string, SqliteStatement>();
  /** Settles when the open transaction ends; statements wait for it, as they would run inside it on this one connection. */
  private transactionDone: Promise<void> | undefined;
  private closed = false;
  /** How many times a statement found the write lock taken (and waited), for tests and the soak's report. */
  busyRetries = 0;

  constructor(
    readonly path: string,
    private readonly options: SqliteFileOptions,
  ) {}

  async query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    while (this.transactionDone) await this.transactionDone;
    return this.run<Row>(sql, params);
  }

  request(sql: string, params: readonly unknown[]) {
    return this.query(sql, params);
  }

  /**
   * Runs `fn` in one transaction (BEGIN IMMEDIATE). It begins at the start of a turn of the event loop, when no other
   * code's promise callbacks are queued, so while `fn` awaits only its own statements (each settles at once) nothing
   * else runs between BEGIN and COMMIT: no client of the app in this process can start waiting for the write lock,
   * sleeping inside the event loop, while this connection holds it. A `fn` that awaits anything else (a timer, a socket)
   * holds the lock across that wait.
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.whenBegun(true, () => {
      let end!: () => void;
      this.transactionDone = new Promise<void>((resolve) => (end = resolve));
      const inside: Db = { query: (sql, params) => this.run(sql, params), request: (sql, params) => this.run(sql, params) };
      return new Promise<T>((resolve) => resolve(fn(inside)))
        .then(
          (result) => this.commit(result),
          (error: unknown) => {
            this.rollback();
            throw error;
          },
        )
        .finally(() => {
          this.transactionDone = undefined;
          end();
        });
    });
  }

  /**
   * Runs every statement of `steps` in one transaction without yielding to the event loop between BEGIN IMMEDIATE and
   * COMMIT: only taking the lock waits (asynchronously, as single statements do); once taken, it is held for the
   * statements alone.
   */
  async transactionSync<T>(steps: Steps<T>): Promise<T> {
    return this.whenBegun(false, () => {
      let next;
      try {
        next = steps.next();
        while (!next.done) {
          const [sql, params] = next.value;
          next = steps.next(this.runNow(sql, params));
        }
      } catch (error) {
        this.rollback();
        throw error;
      }
      return this.commit(next.value);
    });
  }

  /**
   * Waits until no transaction of this connection is open (and, with `freshTurn`, for the start of a turn of the event
   * loop), takes the write lock with BEGIN IMMEDIATE, retrying on SQLITE_BUSY after asynchronous pauses, and calls
   * `then` in the same synchronous run as the BEGIN.
   */
  private async whenBegun<R>(freshTurn: boolean, then: () => R): Promise<R> {
    const deadline = performance.now() + (this.options.busyTimeoutMs ?? 5000);
    let pause = FIRST_PAUSE_MS;
    for (;;) {
      if (this.transactionDone) {
        await this.transactionDone;
        continue;
      }
      if (freshTurn) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.transactionDone) continue;
      }
      try {
        this.runNow("BEGIN IMMEDIATE", []);
      } catch (error) {
        if (!isBusy(error) || performance.now() >= deadline) throw error;
        this.busyRetries += 1;
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
        continue;
      }
      return then();
    }
  }

  /** COMMIT; a COMMIT that fails (a deferred foreign key) leaves the transaction open, so it is rolled back. */
  private commit<T>(result: T): T {
    try {
      this.connection().prepare("COMMIT").run();
    } catch (error) {
      this.rollback();
      throw error;
    }
    return result;
  }

  private rollback(): void {
    const connection = this.connection();
    if (connection.inTransaction) connection.prepare("ROLLBACK").run();
  }

  close(): void {
    this.closed = true;
    this.statements.clear();
    this.database?.close();
    this.database = undefined;
  }

  /** Runs one statement now, retrying on SQLITE_BUSY with growing asynchronous pauses. */
  private async run<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const deadline = performance.now() + (this.options.busyTimeoutMs ?? 5000);
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(LONGEST_PAUSE_MS, pause * 2)) {
      try {
        return this.runNow<Row>(sql, params);
      } catch (error) {
        if (!isBusy(error) || performance.now() >= deadline) throw error;
        this.busyRetries += 1;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Runs one statement once, synchronously. */
  private runNow<Row>(sql: string, params: readonly unknown[]): Row[] {
    const statement = this.prepared(sql);
    return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
  }

  private prepared(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection().prepare(sql);
      if (this.statements.size >= CACHED_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private connection(): SqliteDatabase {
    if (this.database) return this.database;
    if (this.closed) throw new TaskStoreClosedError(`the SQLite store on ${this.path}`);
    const database = new this.Database(this.path, { fileMustExist: true, timeout: 0 });
    try {
      // WAL: readers never block the writer and a commit never waits for readers; a lasting setting of the file.
      database.pragma("journal_mode = WAL");
      database.pragma("foreign_keys = ON");
    } catch (error) {
      database.close();
      throw error;
    }
    this.database = database;
    return database;
  }
}
