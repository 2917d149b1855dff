// The cleaners' leader lock on SQLite: a lease row (SQLite has no sessions to hold an advisory lock). The holder
// renews it every heartbeat; it expires serverIdleTimeoutMs after the last renewal, longer than heartbeat + answer
// timeout, so a leader that cannot renew has given up before any other cleaner can take the row.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "../../logger.js";
import type { ElectionTiming, LeaderLock } from "../../store/leader-lock.js";
import type { SqliteDb } from "./db.js";
import { dropLease, takeLease } from "./sql/leader-lease.js";
import type { SqliteTable } from "./table.js";

export class LeaseLeaderLock implements LeaderLock {
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly name: string;
  private leading = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: SqliteDb,
    private readonly table: SqliteTable,
    key: number,
    private readonly logger: Logger,
    private readonly timing: ElectionTiming,
  ) {
    this.name = `cleaner:${key}`;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  async check(): Promise<boolean> {
    let held: boolean;
    try {
      held = await this.renew();
    } catch (error) {
      this.stop("cleaner could not renew its leader lease and no longer leads", error);
      throw error;
    }
    if (held && !this.leading) {
      this.leading = true;
      this.logger.info("cleaner is leading", { lock: this.name, holder: this.holder });
      this.beat();
    } else if (!held && this.leading) {
      this.stop("cleaner lost its leader lease to another cleaner");
    }
    return this.leading;
  }

  async release(): Promise<void> {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (!this.leading) return;
    this.leading = false;
    await dropLease(this.db, this.table, this.name, this.holder).catch(() => {});
    this.logger.info("cleaner stopped leading", { lock: this.name, holder: this.holder });
  }

  /** Takes or renews the lease; rejects when the database does not answer within the answer timeout. */
  private renew(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the leader lease was not renewed within ${this.timing.answerTimeoutMs} ms`)), this.timing.answerTimeoutMs);
    });
    return Promise.race([takeLease(this.db, this.table, this.name, this.holder, this.timing.serverIdleTimeoutMs), timeout]).finally(() => clearTimeout(timer));
  }

  /** Renews the lease every heartbeat while leading, so a lost lease ends leadership between sweeps too. */
  private beat(): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      this.heartbeat = undefined;
      if (!this.leading) return;
      this.renew().then(
        (held) => (held ? this.beat() : this.stop("cleaner lost its leader lease to another cleaner")),
        (error: unknown) => this.stop("cleaner could not renew its leader lease and no longer leads", error),
      );
    }, this.timing.heartbeatMs);
  }

  private stop(message: string, error?: unknown): void {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (!this.leading) return;
    this.leading = false;
    this.logger.warn(message, { lock: this.name, error: error instanceof Error ? error.message : undefined });
  }
}
