// The cleaners' leader lock on MySQL and MariaDB: a named lock (GET_LOCK) held by a dedicated connection, never a
// pooled one. The session ending, for any reason, releases the lock; losing the connection ends leadership at once.

import type { Connection } from "mariadb";
import type { Logger } from "../../logger.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import { poolConfig } from "./connection-options.js";
import type { Db } from "./db.js";
import { mariadbDriver } from "./driver.js";
import { holdsNamedLock, releaseNamedLock, tryNamedLock, type NamedLock } from "./sql/named-lock.js";

export class NamedLockLeaderLock implements LeaderLock {
  private session: Connection | undefined;
  private opening: Promise<Connection> | undefined;
  private leading = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly lock: NamedLock,
    private readonly logger: Logger,
    private readonly timing: ElectionTiming,
  ) {}

  /** True while this process holds the lock on a session that answered its last ping. */
  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Takes the lock when it is free, or checks that this session still holds it. Returns whether this process leads.
   * Throws when the database cannot be reached; leadership is then already given up.
   */
  async check(): Promise<boolean> {
    try {
      const session = this.session ?? (await this.open());
      const db = this.db(session);
      if (this.leading) {
        if (!(await holdsNamedLock(db, this.lock))) await this.drop(new Error("the lock session no longer holds the lock"));
        return this.leading;
      }
      if (await tryNamedLock(db, this.lock)) {
        this.leading = true;
        this.logger.info("cleaner is leading", { lockKey: this.lock.key, pid: process.pid });
        this.beat(session);
      }
      return this.leading;
    } catch (error) {
      await this.drop(error as Error);
      throw error;
    }
  }

  /** Releases the lock (if held) and closes the session. */
  async release(): Promise<void> {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    const session = this.session ?? (await this.opening?.catch(() => undefined));
    this.session = undefined;
    if (!session) return;
    if (this.leading) {
      this.leading = false;
      await releaseNamedLock(this.db(session), this.lock).catch(() => false);
      this.logger.info("cleaner stopped leading", { lockKey: this.lock.key, pid: process.pid });
    }
    await this.close(session);
  }

  /** Pings the lock every heartbeat while leading, so a lost session ends leadership between sweeps too. */
  private beat(session: Connection): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      this.heartbeat = undefined;
      if (!this.leading || this.session !== session) return;
      holdsNamedLock(this.db(session), this.lock).then(
        (held) => {
          if (held) this.beat(session);
          else if (this.session === session) void this.drop(new Error("the lock session no longer holds the lock"));
        },
        (error: Error) => {
          if (this.session === session) void this.drop(error);
        },
      );
    }, this.timing.heartbeatMs);
  }

  private open(): Promise<Connection> {
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connect(): Promise<Connection> {
    const mariadb = mariadbDriver();
    // The server closes the session when the pings stop for serverIdleTimeoutMs (a partition it cannot see), which
    // frees the lock for a follower; wait_timeout counts whole seconds.
    const idleSeconds = Math.max(1, Math.ceil(this.timing.serverIdleTimeoutMs / 1000));
    // No socket timeout: every statement on this session has its own (answerTimeoutMs), and an idle follower's session
    // may wait longer than any fixed limit between two cleaner intervals.
    const options = { applicationName: "prisma-task-queue cleaner lock", connectTimeoutMs: this.timing.answerTimeoutMs, queryTimeoutMs: 0 };
    const session = await mariadb.createConnection(poolConfig(this.url, options));
    const lost = (error: Error) => {
      if (this.session === session) void this.drop(error);
    };
    session.on("error", lost);
    session.on("end", () => lost(new Error("the lock connection ended")));
    this.session = session;
    // A statement of our own, not a driver init statement (see READ_COMMITTED in pool-db.ts).
    await this.db(session).query(`SET SESSION wait_timeout = ${idleSeconds}`, []);
    return session;
  }

  private async drop(error: Error): Promise<void> {
    const session = this.session;
    this.session = undefined;
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (this.leading) {
      this.leading = false;
      this.logger.warn("cleaner lost its lock connection and no longer leads", { lockKey: this.lock.key, error: error.message });
    }
    if (session) await this.close(session);
  }

  /** Ends the session, and destroys its socket when the server does not answer the goodbye (a half-open connection). */
  private async close(session: Connection): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.timing.answerTimeoutMs);
    });
    await Promise.race([session.end().catch(() => {}), waited]);
    clearTimeout(timer);
    session.destroy();
  }

  /** The session as a Db whose every statement must answer within answerTimeoutMs. */
  private db(session: Connection): Pick<Db, "query"> {
    const timeoutMs = this.timing.answerTimeoutMs;
    const query = async <Row>(sql: string, values: readonly unknown[]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the lock connection did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return (await Promise.race([session.query(sql, values as unknown[]), timeout])) as Row[];
      } finally {
        clearTimeout(timer);
      }
    };
    return { query };
  }
}
