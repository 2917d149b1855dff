// createCleaner(): the sweeper of the seed design. Any number may run; the one holding the advisory lock sweeps every
// interval, the others retry the lock every interval and take over when the leader's session ends.

import type { TaskRegistry } from "../define-tasks.js";
import { openStore } from "../dialects/index.js";
import type { LeaderLock } from "../store/leader-lock.js";
import type { Store } from "../store/store.js";
import { resolveCleanerOptions, type CleanerOptions, type ResolvedCleanerOptions } from "./cleaner-options.js";
import { electionTiming } from "./election-timing.js";
import { openTransport } from "../wakeups/open-transport.js";
import type { WakeupTransport } from "../wakeups/transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";
import { sweep, type CleanerPass } from "./sweep.js";
import { ScheduleFiring } from "./schedule-step.js";
import { registrySchedules } from "../schedules/task-schedule.js";
import { TaskQueueStoppedError } from "../errors.js";
import { MetricsServer } from "../metrics/metrics-server.js";
import { taskMetrics } from "../metrics/task-metrics.js";
import { DEFAULT_QUEUE } from "../enqueue/prepare.js";

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
  private readonly store: Store;
  private readonly ownedStore: Store | undefined;
  private readonly election: LeaderLock;
  private readonly lockKey: number;
  private readonly transport: WakeupTransport;
  private readonly sender: WakeupSender;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<CleanerPass> | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;
  private lastProblem = { text: "", at: 0 };
  private readonly staleCheck: { at: number | undefined } = { at: undefined };
  private readonly schedules: ScheduleFiring;
  private ledLastPass = false;
  private readonly metrics: MetricsServer | undefined;

  constructor(private readonly options: ResolvedCleanerOptions) {
    this.schedules = new ScheduleFiring(registrySchedules(options.tasks), options.tasks);
    this.metrics = options.metrics && new MetricsServer(options.metrics);
    this.ownedStore = options.store
      ? undefined
      : openStore(options.databaseUrl!, { table: options.table, max: 3, applicationName: "prisma-task-queue cleaner", directUrl: options.directUrl });
    this.store = options.store ?? this.ownedStore!;
    this.lockKey = options.lockKey ?? this.store.defaultLockKey();
    this.election = this.store.leaderLock(this.lockKey, electionTiming(options.intervalMs), options.logger);
    try {
      this.transport = openTransport({ ...options.naming, amqpUrl: options.amqpUrl, logger: options.logger, store: this.store, inProcess: this.store.wakeupIdentity });
    } catch (error) {
      void this.ownedStore?.close(); // nothing connected yet: closing only ends the pool it made
      throw error;
    }
    const store = this.store;
    this.sender = new WakeupSender({ transport: this.transport, logger: options.logger, markConfirmed: (ids) => store.markPublished(ids) });
  }

  get isLeader(): boolean {
    return this.election.isLeader;
  }

  async start(): Promise<void> {
    if (this.started || this.stopping) return;
    this.started = true;
    // Its counters show as 0 in this process's metrics (served by this cleaner's metricsPort or a worker's beside it).
    taskMetrics().declareCleaner([...new Set(Object.values(this.options.tasks).map((definition) => definition?.queue ?? DEFAULT_QUEUE))]);
    await this.metrics?.open();
    this.options.logger.info("cleaner started", {
      intervalMs: this.options.intervalMs,
      lockKey: this.lockKey,
      ...(this.metrics && { metrics: this.metrics.url }),
    });
    const custom = Object.entries(this.options.tasks).filter(([, definition]) => typeof definition?.recovery === "function");
    if (custom.length > 0 && this.options.prisma === undefined) {
      this.options.logger.warn("tasks with a recovery function will get ctx.prisma undefined: pass prisma to the cleaner", {
        tasks: custom.map(([name]) => name),
      });
    }
    this.schedule(0);
  }

  runOnce(): Promise<CleanerPass> {
    if (this.stopping) return Promise.reject(new TaskQueueStoppedError("The cleaner", "createCleaner()"));
    const previous = this.current;
    const next = (async () => {
      await previous?.catch(() => undefined);
      return this.pass();
    })();
    this.current = next;
    void next
      .finally(() => {
        if (this.current === next) this.current = undefined;
      })
      .catch(() => undefined);
    return next;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.current?.catch(() => undefined);
      this.schedules.stop();
      await this.election.release();
      await this.sender.close();
      await this.transport.close();
      await this.ownedStore?.close();
      await this.metrics?.close();
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
    const idle: CleanerPass = { leader: false, fired: 0, published: 0, retried: 0, dead: 0, pruned: 0, errors: [], durationMs: 0 };
    try {
      const leads = await this.election.check();
      if (leads && !this.ledLastPass) this.schedules.resync();
      this.ledLastPass = leads;
      if (!leads) return idle;
    } catch (error) {
      this.ledLastPass = false;
      return { ...idle, errors: [`lock: ${(error as Error).message}`] };
    }
    this.transport.start(); // followers keep no broker connection
    const budgetMs = Math.max(this.options.intervalMs, 1000);
    return sweep({
      options: this.options,
      store: this.store,
      transport: this.transport,
      sender: this.sender,
      logger: this.options.logger,
      more: (startedAt) => !this.stopping && this.election.isLeader && performance.now() - startedAt < budgetMs,
      staleCheck: this.staleCheck,
      schedules: this.schedules,
    });
  }

  private report(pass: CleanerPass): void {
    for (const error of pass.errors) this.problem(error);
    if (pass.fired + pass.published + pass.retried + pass.dead + pass.pruned > 0) {
      const { fired, published, retried, dead, pruned, durationMs } = pass;
      this.options.logger.info("cleaner sweep", { fired, published, retried, dead, pruned, durationMs });
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
