// The cleaners' leader lock, written once for every dialect over the calls each provides (take, hold, release on a
// session it opens): a heartbeat while leading, an answer timeout on every call, and leadership given up at once.

import type { Logger } from "../logger.js";
import type { ElectionTiming, LeaderLock } from "./leader-lock.js";

/** One contender's hold on the lock, as a dialect opens it (a dedicated connection, or none for a lease row). */
export interface LeaderSession {
  /** Takes the lock when it is free, never waiting. True when this contender holds it now. */
  take(): Promise<boolean>;
  /** Proves the lock is still held: false when it was lost; rejects when the database cannot be reached. */
  hold(): Promise<boolean>;
  /** Gives the lock up. */
  release(): Promise<void>;
  /** Ends what the session opened; never rejects. */
  close(): Promise<void>;
}

/** What a dialect provides for one contender. */
export interface LeaderCalls {
  /**
   * "session": the lock lives with a connection and ends with it (PostgreSQL's advisory lock, MySQL's GET_LOCK);
   * "lease": a row that expires unless renewed (SQLite). It only chooses the words of the log.
   */
  readonly kind: "session" | "lease";
  /** Opens a session; `lost` is told when its connection ends by itself. Rejects when the database cannot be reached. */
  open(lost: (error: Error) => void): Promise<LeaderSession>;
}

/** Rejects with `message` when `promise` does not settle within `ms`. */
export async function answerWithin<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const WORDS = {
  session: { failed: "cleaner lost its lock connection and no longer leads", lost: "cleaner lost its lock connection and no longer leads" },
  lease: { failed: "cleaner could not renew its leader lease and no longer leads", lost: "cleaner lost its leader lease to another cleaner" },
} as const;

export class LeaderElector implements LeaderLock {
  private session: LeaderSession | undefined;
  private opening: Promise<LeaderSession> | undefined;
  private leading = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly calls: LeaderCalls,
    private readonly key: number,
    private readonly logger: Logger,
    private readonly timing: ElectionTiming,
  ) {}

  /** True while this contender holds the lock and its last ping was answered. */
  get isLeader(): boolean {
    return this.leading;
  }

  async check(): Promise<boolean> {
    try {
      const session = this.session ?? (await this.open());
      if (this.leading) {
        if (!(await this.answered(session.hold()))) await this.drop(WORDS[this.calls.kind].lost, new Error("the lock is no longer held"));
        return this.leading;
      }
      if (await this.answered(session.take())) {
        this.leading = true;
        this.logger.info("cleaner is leading", { lockKey: this.key, pid: process.pid });
        this.beat(session);
      }
      return this.leading;
    } catch (error) {
      await this.drop(WORDS[this.calls.kind].failed, error as Error);
      throw error;
    }
  }

  async release(): Promise<void> {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    const session = this.session ?? (await this.opening?.catch(() => undefined));
    this.session = undefined;
    if (!session) return;
    if (this.leading) {
      this.leading = false;
      await this.answered(session.release()).catch(() => {});
      this.logger.info("cleaner stopped leading", { lockKey: this.key, pid: process.pid });
    }
    await session.close();
  }

  /** Proves the lock every heartbeat while leading, so a lost lock ends leadership between sweeps too. */
  private beat(session: LeaderSession): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      this.heartbeat = undefined;
      if (!this.leading || this.session !== session) return;
      this.answered(session.hold()).then(
        (held) => {
          if (held) this.beat(session);
          else if (this.session === session) void this.drop(WORDS[this.calls.kind].lost, new Error("the lock is no longer held"));
        },
        (error: Error) => {
          if (this.session === session) void this.drop(WORDS[this.calls.kind].failed, error);
        },
      );
    }, this.timing.heartbeatMs);
  }

  private open(): Promise<LeaderSession> {
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connect(): Promise<LeaderSession> {
    // Read by the callback, which can fire before open() has returned: undefined until then, never a TDZ error.
    let opened: LeaderSession | undefined = undefined;
    opened = await this.calls.open((error) => {
      if (opened !== undefined && this.session === opened) void this.drop(WORDS[this.calls.kind].failed, error);
    });
    this.session = opened;
    return opened;
  }

  /** Stops leading (warning when it led) and ends the session; the next check opens a new one. */
  private async drop(message: string, error: Error): Promise<void> {
    const session = this.session;
    this.session = undefined;
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (this.leading) {
      this.leading = false;
      this.logger.warn(message, { lockKey: this.key, error: error.message });
    }
    await session?.close();
  }

  private answered<T>(call: Promise<T>): Promise<T> {
    const ms = this.timing.answerTimeoutMs;
    return answerWithin(call, ms, `the leader lock did not answer within ${ms} ms`);
  }
}
