// createCleaner(): the sweeper of the seed design. Any number may run; the one holding the advisory lock sweeps every
// interval, the others retry the lock every interval and take over when the leader's session ends.

import { pgDb, type PgDb } from "../db/pg-db.js";
import type { TransactionalDb } from "../db/driver.js";
import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { CleanerBroker } from "./cleaner-broker.js";
import { resolveCleanerOptions, type CleanerOptions, type ResolvedCleanerOptions } from "./cleaner-options.js";
import { electionTiming, LeaderElection } from "./leader-election.js";
import { sweep, type CleanerPass } from "./sweep.js";

export type { CleanerOptions } from "./cleaner-options.js";
export type { CleanerPass } from "./sweep.js";

export interface Cleaner {
  /** Starts sweeping (when it wins the lock) every intervalMs. Resolves at once; the first attempt runs right away. */
  start(): Promise<void>;
  /** Finishes the sweep in progress, releases the lock and closes what the cleaner opened. Idempotent. */
  stop(): Promise<void>;
  /** True while this cleaner holds the leader lock. */
  readonly isLeader: boolean;
  /** Tries to lead (if it does not) and, when leading, sweeps once now. Waits for a sweep already in progress first. */
  runOnce(): Promise<CleanerPass>;
}

/** Creates a cleaner. Options are checked now; nothing connects before start() or runOnce(). */
export function createCleaner<Tasks extends TaskRegistry>(options: CleanerOptions<Tasks>): Cleaner {
  return new LeaderCleaner(resolveCleanerOptions(options));
}

const REPEAT_PROBLEM_MS = 30_000;

class LeaderCleaner implements Cleaner {
  private readonly db: TransactionalDb;
  private readonly ownedDb: PgDb | undefined;
  private readonly election: LeaderElection;
  private readonly broker: CleanerBroker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<CleanerPass> | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;
  private lastProblem = { text: "", at: 0 };
  private readonly staleCheck: { at: number | undefined } = { at: undefined };

  constructor(private readonly options: ResolvedCleanerOptions) {
    this.ownedDb = options.db ? undefined : pgDb(options.databaseUrl!, { max: 3, applicationName: "prisma-task-queue cleaner" });
    this.db = options.db ?? this.ownedDb!;
    const pool = (options.db as Partial<PgDb> | undefined)?.pool;
    const source = options.databaseUrl ? { url: options.databaseUrl } : pool ? { pool } : undefined;
    if (!source) {
      throw new TaskQueueConfigError(
        "databaseUrl",
        "the cleaner's leader lock needs a session of its own: pass databaseUrl too, or a db made by pgDb(url).",
      );
    }
    this.election = new LeaderElection(source, options.lockKey, options.logger, electionTiming(options.intervalMs));
    this.broker = options.amqpUrl ? new CleanerBroker(options.amqpUrl, options.topology, this.db, options.table, options.logger) : undefined;
  }

  get isLeader(): boolean {
    return this.election.isLeader;
  }

  async start(): Promise<void> {
    if (this.started || this.stopping) return;
    this.started = true;
    this.options.logger.info("cleaner started", { intervalMs: this.options.intervalMs, lockKey: this.options.lockKey });
    const custom = Object.entries(this.options.tasks).filter(([, definition]) => typeof definition?.recovery === "function");
    if (custom.length > 0 && this.options.prisma === undefined) {
      this.options.logger.warn("tasks with a recovery function will get ctx.prisma undefined: pass prisma to the cleaner", {
        tasks: custom.map(([name]) => name),
      });
    }
    this.schedule(0);
  }

  runOnce(): Promise<CleanerPass> {
    if (this.stopping) return Promise.reject(new Error("the cleaner is stopped"));
    const previous = this.current;
    const next = (async () => {
      await previous?.catch(() => undefined);
      return this.pass();
    })();
    this.current = next;
    void next.finally(() => {
      if (this.current === next) this.current = undefined;
    }).catch(() => undefined);
    return next;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.current?.catch(() => undefined);
      await this.election.release();
      await this.broker?.close();
      await this.ownedDb?.close();
      if (this.started) this.options.logger.info("cleaner stopped", {});
    })();
    return this.stopping;
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runOnce()
        .then((pass) => this.report(pass))
        .catch((error: Error) => this.problem(`sweep failed: ${error.message}`))
        .finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
  }

  private async pass(): Promise<CleanerPass> {
    const idle: CleanerPass = { leader: false, published: 0, retried: 0, dead: 0, pruned: 0, errors: [], durationMs: 0 };
    try {
      if (!(await this.election.check())) return idle;
    } catch (error) {
      return { ...idle, errors: [`lock: ${(error as Error).message}`] };
    }
    this.broker?.start(); // followers keep no broker connection
    const budgetMs = Math.max(this.options.intervalMs, 1000);
    return sweep({
      options: this.options,
      db: this.db,
      broker: this.broker,
      logger: this.options.logger,
      more: (startedAt) => !this.stopping && this.election.isLeader && performance.now() - startedAt < budgetMs,
      staleCheck: this.staleCheck,
    });
  }

  private report(pass: CleanerPass): void {
    for (const error of pass.errors) this.problem(error);
    if (pass.published + pass.retried + pass.dead + pass.pruned > 0) {
      const { published, retried, dead, pruned, durationMs } = pass;
      this.options.logger.info("cleaner sweep", { published, retried, dead, pruned, durationMs });
    }
  }

  /** Logs a problem, but the same one at most every 30 s: a database outage must not flood the log. */
  private problem(text: string): void {
    const now = Date.now();
    if (text === this.lastProblem.text && now - this.lastProblem.at < REPEAT_PROBLEM_MS) return;
    this.lastProblem = { text, at: now };
    this.options.logger.error("cleaner problem", { error: text });
  }
}
