// The cleaners' leader lock on PostgreSQL: a session advisory lock held on a dedicated connection (never a pooled
// statement). The session ending, for any reason, releases the lock; losing the connection ends leadership at once.

import type pg from "pg";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { Logger } from "../../logger.js";
import type { Db } from "./db.js";
import { pgDriver } from "./driver.js";
import { releaseLeaderLock, tryLeaderLock } from "./sql/advisory-lock.js";

/** Where the dedicated session comes from: its own client on a URL, or a client checked out of a pg pool for good. */
export type LockConnectionSource = { url: string } | { pool: pg.Pool };

type Session = { client: pg.ClientBase; close(): Promise<void> };

export class AdvisoryLeaderLock implements LeaderLock {
  private session: Session | undefined;
  private opening: Promise<Session> | undefined;
  private leading = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: LockConnectionSource,
    private readonly key: number,
    private readonly logger: Logger,
    private readonly timing: ElectionTiming,
  ) {}

  /** True while this process holds the lock on a session that answered its last ping. */
  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Takes the lock when it is free, or checks that the session holding it is still alive. Returns whether this process
   * leads. Throws when the database cannot be reached; leadership is then already given up.
   */
  async check(): Promise<boolean> {
    try {
      const session = this.session ?? (await this.open());
      const db = this.db(session.client);
      if (this.leading) {
        await db.query("SELECT 1", []);
        return this.leading;
      }
      if (await tryLeaderLock(db, this.key)) {
        this.leading = true;
        this.logger.info("cleaner is leading", { lockKey: this.key, pid: process.pid });
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
      await releaseLeaderLock(this.db(session.client), this.key).catch(() => false);
      this.logger.info("cleaner stopped leading", { lockKey: this.key, pid: process.pid });
    }
    await session.close().catch(() => {});
  }

  /** Pings the lock session every heartbeat while leading, so a lost session ends leadership between sweeps too. */
  private beat(session: Session): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      this.heartbeat = undefined;
      if (!this.leading || this.session !== session) return;
      this.db(session.client)
        .query("SELECT 1", [])
        .then(
          () => this.beat(session),
          (error: Error) => {
            if (this.session === session) void this.drop(error);
          },
        );
    }, this.timing.heartbeatMs);
  }

  private open(): Promise<Session> {
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connect(): Promise<Session> {
    let session: Session;
    if ("url" in this.source) {
      const client = new (pgDriver().Client)({
        connectionString: this.source.url,
        application_name: "prisma-task-queue cleaner lock",
        keepAlive: true,
        connectionTimeoutMillis: this.timing.answerTimeoutMs,
      });
      client.on("error", () => {}); // 'end' follows
      await client.connect();
      session = { client, close: () => endClient(client, this.timing.answerTimeoutMs) };
    } else {
      const client = await this.source.pool.connect();
      client.on("error", () => {});
      session = { client, close: async () => client.release(true) };
    }
    const lost = (error: Error) => {
      if (this.session === session) void this.drop(error);
    };
    session.client.on("error", lost);
    session.client.on("end", () => lost(new Error("the lock connection ended")));
    this.session = session;
    // PostgreSQL 14+: the server ends this session when the pings stop (a partition it cannot see). Older servers keep
    // it until TCP keepalive gives up; the lock then waits that long for a new leader.
    await this.db(session.client)
      .query(`SET idle_session_timeout = ${Math.round(this.timing.serverIdleTimeoutMs)}`, [])
      .catch(() => undefined);
    return session;
  }

  private async drop(error: Error): Promise<void> {
    const session = this.session;
    this.session = undefined;
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (this.leading) {
      this.leading = false;
      this.logger.warn("cleaner lost its lock connection and no longer leads", { lockKey: this.key, error: error.message });
    }
    await session?.close().catch(() => {});
  }

  private db(client: pg.ClientBase): Db {
    const timeoutMs = this.timing.answerTimeoutMs;
    const query = async <Row>(text: string, values: readonly unknown[]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the lock connection did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return (await Promise.race([client.query(text, values as unknown[]), timeout])).rows as Row[];
      } finally {
        clearTimeout(timer);
      }
    };
    return { query, request: query };
  }
}

/** Ends a client, and destroys its socket when the server does not answer the goodbye (a half-open connection). */
async function endClient(client: pg.Client, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([client.end().catch(() => {}), waited]);
  clearTimeout(timer);
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
