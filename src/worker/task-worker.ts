// The worker's lifecycle: start opens the store and the transport and wires wake-ups and polling to claims and runs;
// stop shuts down gracefully (drain within the grace period, then give the rest back without using an attempt).

import { openStore } from "../dialects/index.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import type { ClaimFilter } from "../store/task-writes.js";
import { ClaimBudget, wakeupPrefetch } from "./claim-budget.js";
import { ClaimLoop } from "./claim-loop.js";
import { Claimer } from "./claimer.js";
import { DueTimers } from "./due-timers.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { OutcomeWriter } from "./outcome-writer.js";
import { Poller } from "./poller.js";
import { RunLauncher } from "./run-launcher.js";
import { Slots } from "./slots.js";
import { checkDatabase } from "./start-checks.js";
import { StopSignal } from "./stop-signal.js";
import type { TaskRun } from "./task-run.js";
import { WakeupDelivery } from "./wakeup-delivery.js";
import { listenableWakeups } from "./listen-fallback.js";
import { openTransport } from "../wakeups/open-transport.js";
import type { WakeupListener, WakeupTransport } from "../wakeups/transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";
import { traceChannels, traceWakeups } from "../trace/channels.js";
import type { ResolvedWorkerOptions } from "./worker-options.js";
import { wakeupSummary } from "./wakeup-summary.js";
import { LimitWaiter } from "./limit-waiter.js";
import { LimitsView } from "./limits-view.js";
import { queueDeclarations } from "./queue-limits.js";
import { errorMessage } from "../error-text.js";
import { TaskQueueStoppedError } from "../errors.js";
import { MetricsServer } from "../metrics/metrics-server.js";
import { taskMetrics } from "../metrics/task-metrics.js";
import { DEFAULT_QUEUE } from "../enqueue/prepare.js";

/** The pool of the store a worker opens for itself (without `store`). */
export const WORKER_POOL = { max: 6, applicationName: "task-runner worker" } as const;

export class TaskWorker {
  private readonly logger: Logger;
  private readonly slots: Slots;
  /** Tasks this worker holds claimed, running or waiting for a run slot: as many as the budget allows. */
  private readonly claims: Slots;
  private readonly budget: ClaimBudget;
  private readonly runs = new Set<TaskRun>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly stopSignal = new StopSignal();
  private readonly filter: ClaimFilter;
  private store!: Store;
  private ownStore: Store | undefined;
  private metrics: MetricsServer | undefined;
  private outcomes!: OutcomeWriter;
  private leases!: LeaseKeeper;
  private launcher!: RunLauncher;
  private poller!: Poller;
  private timers!: DueTimers;
  private limitWaiter: LimitWaiter | undefined;
  private limitsView: LimitsView | undefined;
  /** Whether the limits of queueLimits are written into the queues' rows. */
  private limitsDeclared = false;
  private transport!: WakeupTransport;
  private sender!: WakeupSender;
  private listener!: WakeupListener;
  private starting: Promise<void> | undefined;
  /** Which writes commit without waiting for the disk flush, for the start's log line. */
  private asyncCommits = "none";
  private booted = false;
  private stopping: Promise<void> | undefined;
  private force!: () => void;
  private readonly forced = new Promise<void>((resolve) => (this.force = resolve));

  constructor(private readonly options: ResolvedWorkerOptions) {
    this.logger = options.logger;
    this.slots = new Slots(options.concurrency);
    this.budget = new ClaimBudget(options.concurrency, options.claimAhead);
    this.claims = new Slots(this.budget.limit());
    this.filter = { owner: options.workerId, leaseMs: options.leaseMs, names: options.names, queues: options.queues };
    if (Object.keys(options.limits).length > 0) this.filter.limits = options.limits;
    this.filter.refused = (refusal) => this.limitWaiter?.refused(refusal);
    this.filter.fitted = (queue) => this.limitWaiter?.fitted(queue);
  }

  get id(): string {
    return this.options.workerId;
  }

  start(): Promise<void> {
    if (this.stopping) return Promise.reject(new TaskQueueStoppedError(`Worker ${this.id}`, "createWorker()"));
    this.starting ??= this.boot();
    return this.starting;
  }

  /** First call: drain, then release. A second call while the first waits skips the rest of the grace period. */
  stop(): Promise<void> {
    if (this.stopping) {
      this.force();
      return this.stopping;
    }
    this.stopping = this.shutdown();
    return this.stopping;
  }

  private async boot(): Promise<void> {
    const { options } = this;
    await this.serveMetrics();
    this.store =
      options.store ??
      (this.ownStore = openStore(options.databaseUrl!, {
        table: options.table,
        ...WORKER_POOL,
        preparedStatements: options.preparedStatements,
        directUrl: options.directUrl,
      }));
    try {
      // Inside the try: a transport that cannot be made (its client package not installed) closes the store too.
      this.transport = openTransport({
        ...options.naming,
        wakeups: listenableWakeups({ ...options, wakeups: options.naming.wakeups }, this.store, this.logger),
        amqpUrl: options.amqpUrl,
        logger: this.logger,
        store: this.store,
        listenUrl: options.listenUrl,
        inProcess: this.store.wakeupIdentity,
      });
      // Nothing else is opened, and no timer runs, until wrong credentials or a missing table are ruled out.
      const [database, broker] = await Promise.allSettled([
        checkDatabase(this.store, options.table, options.store ? undefined : options.databaseUrl),
        this.transport.checkAccess(),
      ]);
      if (database.status === "rejected") throw database.reason;
      if (broker.status === "rejected") throw broker.reason;
      if (database.value) this.logger.warn("database unreachable at start; the worker keeps trying", { error: database.value });
      else await this.declareLimits();
    } catch (error) {
      await this.ownStore?.close().catch(() => {});
      await this.metrics?.close();
      throw error;
    }
    this.booted = true;
    this.wire();
    await this.limitsView!.start(this.limitsDeclared);
    this.listener.start();
    await this.poller.start();
    if (await this.transport.settled(2000, this.stopSignal.signal)) await this.listener.waitConsuming(5000);
    this.logger.info("worker started", {
      workerId: this.id,
      queues: options.queues,
      tasks: options.names,
      concurrency: options.concurrency,
      wakeups: wakeupSummary(this.transport, this.listener.consuming, options.pollIntervalMs),
      asyncCommits: this.asyncCommits,
      ...(this.metrics && { metrics: this.metrics.url }),
    });
  }

  /** With metricsPort: serves the process's metrics, its handled tasks' counters at 0 until they first run. */
  private async serveMetrics(): Promise<void> {
    const { options } = this;
    if (!options.metrics) return;
    taskMetrics().declareRuns(
      [...options.handled]
        .filter(([, definition]) => options.queues.includes(definition.queue ?? DEFAULT_QUEUE))
        .map(([task, definition]) => ({ queue: definition.queue ?? DEFAULT_QUEUE, task })),
    );
    this.metrics = new MetricsServer(options.metrics);
    await this.metrics.open();
  }

  /**
   * Writes the limits `queueLimits` declares into the queues' rows, where every worker's claims read them. A database
   * without the queue table fails the start (naming the migration); another failure is logged, and the limits view
   * writes them at its next read (this worker keeps to them meanwhile). True once written (or nothing to write).
   */
  private async declareLimits(): Promise<boolean> {
    const declared = queueDeclarations(this.options.limits);
    if (declared.length > 0) {
      try {
        await this.store.syncQueues(declared);
      } catch (error) {
        if (this.store.classify(error).kind === "missing-table") throw error;
        this.logger.warn("could not record the queues' limits; trying again shortly, and keeping to them meanwhile", { error: errorMessage(error) });
        return false;
      }
    }
    this.limitsDeclared = true;
    return true;
  }

  /** Makes the parts that claim, run and keep leases, and the listener that feeds them wake-ups. */
  private wire(): void {
    const { options, store, transport, logger, slots, claims, budget, runs, filter, stopSignal: stop } = this;
    const sender = (this.sender = new WakeupSender({ transport, logger }));
    const shared = { store, owner: options.workerId, leaseMs: options.leaseMs, logger };
    const { claims: claimStore, completions } = this.commitStores();
    // Tasks due later that this worker knows of (delayed enqueues' wake-ups, its own retries) are claimed on time.
    const timers = (this.timers = new DueTimers({
      claim: (ids, queue, timed) => {
        this.track(delivery.deliver(ids, queue, timed)).catch((error: unknown) => {
          logger.warn("claiming tasks due now failed; polling and the cleaner pick them up", { queue, tasks: ids.length, error: String(error) });
        });
      },
      dropped: (count) => logger.debug("tasks due later not kept: this worker holds the most it keeps; the cleaner wakes them when due", { count }),
    }));
    const outcomes = (this.outcomes = new OutcomeWriter({
      ...shared,
      completions,
      deadLetters: transport.notifiesDead ? sender : undefined,
      retryScheduled: (task, dueAt) => timers.add(task.queue, [{ id: task.id, dueAt }]),
      parentWoken: (parent) => sender.send([parent]),
    }));
    this.leases = new LeaseKeeper({ ...shared, runs: () => runs });
    this.leases.start();
    const runEnded = (queue: string, name: string) => this.limitWaiter?.runEnded(queue, name);
    const launcher = (this.launcher = new RunLauncher({
      ...{ options, store, outcomes, sender, logger, stop, slots, claims, budget, runs, runEnded },
      place: { dialect: store.dialect, transport: transport.name },
    }));
    const limitsView = (this.limitsView = new LimitsView({
      store,
      queues: options.queues,
      declared: options.limits,
      logger,
      declare: this.limitsDeclared ? undefined : () => this.declareLimits(),
      apply: (limits, first) => {
        filter.limits = Object.keys(limits).length > 0 ? limits : undefined;
        // Wake-ups of a queue whose limit this worker did not know were dropped as limited: look for its due tasks now.
        if (!first) this.poller.catchUp();
      },
    }));
    const claimer = new Claimer(claimStore, filter, (queue) => limitsView.limitedElsewhere(queue));
    const track = <T>(promise: Promise<T>) => this.track(promise);
    const claimLoop = new ClaimLoop({ store: claimStore, claimer, filter, concurrency: options.concurrency, claims, budget, launcher, logger, stop, track });
    const poller = (this.poller = new Poller({
      intervalMs: options.pollIntervalMs,
      logger,
      active: () => !this.listener.consuming,
      poll: () => claimLoop.pollDue(),
    }));
    claims.onFreed(() => poller.kick());
    this.limitWaiter = new LimitWaiter({ limits: () => filter.limits ?? {}, poll: () => poller.catchUp(), intervalMs: options.pollIntervalMs });
    const listener = () => this.listener;
    const delivery = new WakeupDelivery({ transport, listener, sender, poller, claimLoop, launcher, claims, budget, filter, logger, stop });
    this.listener = transport.listen({
      queues: options.queues,
      prefetch: wakeupPrefetch(options.concurrency, options.claimAhead),
      deliver: (ids, queue) => {
        traceWakeups(traceChannels.wakeupsReceived, queue, ids);
        return this.track(delivery.deliver(ids, queue));
      },
      deliverLater: (wakeups, queue) => {
        timers.add(queue, wakeups);
        logger.debug("tasks due later kept for their time", { queue, tasks: wakeups.length, kept: timers.size });
      },
      // Wake-ups sent while the listener was away are gone (NOTIFY): look for their tasks once.
      resumed: () => poller.catchUp(),
    });
  }

  /**
   * The stores the claims and the completions go through: the worker's store, or its view whose commits do not wait
   * for the disk flush (asyncClaims, asyncCompletions) where the dialect has one.
   */
  private commitStores(): { claims: Store; completions: Store } {
    const { store, options } = this;
    const relaxed = options.asyncClaims || options.asyncCompletions ? store.withAsyncCommit() : undefined;
    const claims = (options.asyncClaims && relaxed) || store;
    const completions = (options.asyncCompletions && relaxed) || store;
    const kinds = [claims !== store && "claims", completions !== store && "completions"].filter(Boolean);
    this.asyncCommits = kinds.length > 0 ? kinds.join(" and ") : "none";
    return { claims, completions };
  }

  private async shutdown(): Promise<void> {
    this.stopSignal.stop();
    await this.starting?.catch(() => {});
    if (!this.booted) return; // never started, or start() failed and closed what it had opened
    const graceMs = this.options.shutdownGraceMs;
    this.logger.info("worker stopping", { workerId: this.id, running: this.runs.size, graceMs });
    this.limitWaiter?.stop();
    this.limitsView?.stop();
    await this.poller.stop();
    this.timers.close();
    await this.listener.cancel();
    this.slots.close();
    this.claims.close();
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, graceMs)));
    await Promise.race([this.settled(), graceOver, this.forced]);
    clearTimeout(graceTimer);
    await this.launcher.release([...this.runs]);
    await this.settled();
    await this.leases.stop();
    await this.outcomes.flush();
    await this.sender.close();
    await this.listener.close();
    await this.transport.close();
    await this.ownStore?.close();
    await this.metrics?.close();
    this.logger.info("worker stopped", { workerId: this.id });
  }

  /** Resolves when no claim is in flight and every run is settled. */
  private async settled(): Promise<void> {
    while (this.work.size > 0 || this.runs.size > 0) {
      await Promise.all([...this.work, ...[...this.runs].map((run) => run.finished)]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => {});
    return promise;
  }
}
