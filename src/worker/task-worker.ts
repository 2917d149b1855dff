// The worker: wires wake-ups and polling to claims, runs claimed tasks within the concurrency limit, keeps their
// leases, and shuts down gracefully (drain within the grace period, then give the rest back without using an attempt).

import { openStore } from "../dialects/index.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { ClaimByIdResult, ClaimFilter } from "../store/task-writes.js";
import { ClaimBudget } from "./claim-budget.js";
import { Claimer } from "./claimer.js";
import { logDroppedWakeup } from "./dropped-wakeup.js";
import { errorMessage } from "../error-text.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { OutcomeWriter } from "./outcome-writer.js";
import { Poller } from "./poller.js";
import { Slots } from "./slots.js";
import { checkDatabase } from "./start-checks.js";
import { TaskRun, type RunHooks } from "./task-run.js";
import { openTransport } from "../wakeups/open-transport.js";
import type { WakeupListener, WakeupTransport } from "../wakeups/transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";
import { traceChannels, traceWakeups } from "../trace/channels.js";
import type { ResolvedWorkerOptions } from "./worker-options.js";
import { wakeupSummary } from "./wakeup-summary.js";

/** The pool of the store a worker opens for itself (without `store`). */
export const WORKER_POOL = { max: 6, applicationName: "task-runner worker" } as const;

/** Pauses before claiming again an id whose row is missing (the message overtook the commit) or locked: ~1.5 s in all. */
const CLAIM_RETRY_DELAYS_MS = [50, 100, 200, 400, 800];
/**
 * How long a wake-up's ids wait for a claim slot before they are handed back to the queue for another worker (when the
 * queue has one): a worker busy with slow tasks does not sit on a message of many ids while other workers are idle.
 */
const HAND_BACK_AFTER_MS = 200;
/** Longest pause between attempts of a claim statement that failed (database unreachable). */
const CLAIM_FAILURE_MAX_PAUSE_MS = 2000;

type IdOutcome = "claimed" | "dropped" | "abandoned";

export class TaskWorker {
  private readonly logger: Logger;
  private readonly slots: Slots;
  /** Tasks this worker holds claimed, running or waiting for a run slot: as many as the budget allows. */
  private readonly claims: Slots;
  private readonly budget: ClaimBudget;
  private readonly runs = new Set<TaskRun>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly stopped = new AbortController();
  private readonly pauses = new Set<() => void>();
  private readonly filter: ClaimFilter;
  private store!: Store;
  private ownStore: Store | undefined;
  private claimer!: Claimer;
  private outcomes!: OutcomeWriter;
  private leases!: LeaseKeeper;
  private poller!: Poller;
  private transport!: WakeupTransport;
  private sender!: WakeupSender;
  private listener!: WakeupListener;
  private starting: Promise<void> | undefined;
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
  }

  get id(): string {
    return this.options.workerId;
  }

  start(): Promise<void> {
    if (this.stopping) return Promise.reject(new Error(`Worker ${this.id} was stopped; create a new worker to start again.`));
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
    this.store = options.store ?? (this.ownStore = openStore(options.databaseUrl!, {
      table: options.table,
      ...WORKER_POOL,
      preparedStatements: options.preparedStatements,
    }));
    try {
      // Inside the try: a transport that cannot be made (its client package not installed) closes the store too.
      this.transport = openTransport({
        ...options.naming,
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
    } catch (error) {
      await this.ownStore?.close().catch(() => {});
      throw error;
    }
    this.booted = true;
    this.sender = new WakeupSender({ transport: this.transport, logger: this.logger });
    const shared = { store: this.store, owner: options.workerId, leaseMs: options.leaseMs, logger: this.logger };
    this.claimer = new Claimer(this.store, this.filter);
    this.outcomes = new OutcomeWriter({ ...shared, deadLetters: this.transport.notifiesDead ? this.sender : undefined });
    this.leases = new LeaseKeeper({ ...shared, runs: () => this.runs });
    this.leases.start();
    this.poller = new Poller({
      intervalMs: options.pollIntervalMs,
      logger: this.logger,
      active: () => !this.listener.consuming,
      poll: () => this.pollDue(),
    });
    this.claims.onFreed(() => this.poller.kick());
    this.listener = this.transport.listen({
      queues: options.queues,
      prefetch: options.concurrency,
      deliver: (ids, queue) => {
        traceWakeups(traceChannels.wakeupsReceived, queue, ids);
        return this.track(this.deliver(ids, queue));
      },
      // Wake-ups sent while the listener was away are gone (NOTIFY): look for their tasks once.
      resumed: () => this.poller.catchUp(),
    });
    this.listener.start();
    await this.poller.start();
    if (await this.transport.settled(2000, this.stopped.signal)) await this.listener.waitConsuming(5000);
    this.logger.info("worker started", {
      workerId: this.id,
      queues: options.queues,
      tasks: options.names,
      concurrency: options.concurrency,
      wakeups: wakeupSummary(this.transport, this.listener.consuming, options.pollIntervalMs),
    });
  }

  /**
   * Handles the ids of one wake-up; true when the message may be acked (every id claimed or dropped). Takes as many
   * claim slots as are free and claims those ids in one statement (with other wake-ups' ids of the same turn).
   */
  private async deliver(ids: string[], queue: string): Promise<boolean> {
    const waiting = ids.length > 1 ? [...new Set(ids)] : ids;
    const later: Array<Promise<IdOutcome>> = [];
    let abandoned = false;
    while (waiting.length > 0) {
      this.claims.setLimit(this.budget.limit());
      const taken = await this.claimSlots(waiting, queue);
      if (taken === "handed back") break;
      const results = taken > 0 ? await this.claimHeld(waiting.splice(0, taken)) : undefined;
      if (!results) {
        abandoned = true;
        break;
      }
      for (const result of results) {
        if (result.claimed) this.launch(result.claimed, "wakeup");
        else later.push(this.claimLater(result));
      }
    }
    const outcomes = await Promise.all(later);
    return !abandoned && !outcomes.includes("abandoned");
  }

  /**
   * Claim slots for up to `ids.length` of the ids (0 when stopping). After HAND_BACK_AFTER_MS without a slot, when
   * another worker consumes the queue and finds nothing ready in it, the ids are published again for it instead
   * ("handed back").
   */
  private async claimSlots(ids: string[], queue: string): Promise<number | "handed back"> {
    const taken = await this.claims.acquireUpTo(ids.length, HAND_BACK_AFTER_MS);
    if (taken > 0 || this.stopping) return taken;
    if (await this.handBack(ids, queue)) return "handed back";
    return this.claims.acquireUpTo(ids.length);
  }

  /**
   * With a transport that fans out (NOTIFY), lets the ids go and catches up by polling. Otherwise publishes `ids` again
   * when another worker consumes `queue` and no message waits ready in it (so that worker may be
   * idle; while messages wait, every worker has work and handing back would only shuffle it). True once the publish
   * settled. Should the broker not confirm it, the ids are still pending rows marked published, which the cleaner
   * re-sends once republishAfterMs old.
   */
  private async handBack(ids: string[], queue: string): Promise<boolean> {
    if (this.transport.fansOut && !this.stopping) {
      // Every listening worker got these ids: an idle one claims them now; this one polls for work as its slots free
      // instead of holding ids that are likely taken by then.
      this.poller.catchUp();
      this.logger.debug("wake-up ids left to other workers and to polling", { queue, tasks: ids.length });
      return true;
    }
    const state = await this.listener.queueState(queue);
    if (!state || state.consumers < 2 || state.ready > 0 || this.stopping) return false;
    this.sender.send(ids.map((id) => ({ id, queue })));
    await this.sender.flush();
    this.logger.debug("wake-up ids handed back for another worker", { queue, tasks: ids.length, consumers: state.consumers });
    return true;
  }

  /** Claims `ids`, for which claim slots are held, retrying while the statement fails; undefined when stopping. */
  private async claimHeld(ids: string[]): Promise<ClaimByIdResult[] | undefined> {
    for (let failures = 1; ; failures++) {
      try {
        return await this.claimer.claimMany(ids);
      } catch (error) {
        if (failures === 1 || failures % 10 === 0) {
          this.logger.warn("claim failed; retrying", { taskIds: ids.slice(0, 10), tasks: ids.length, error: errorMessage(error) });
        }
        // Claims of every waiting wake-up go out as one statement, so retrying every 2 s at most costs little; a
        // longer pause would leave the worker idle well after the database is back.
        if (!(await this.pause(Math.min(CLAIM_FAILURE_MAX_PAUSE_MS, 100 * 2 ** failures)))) {
          this.claims.release(ids.length);
          return undefined;
        }
      }
    }
  }

  /**
   * An id the claim did not take: its slot is given back, and a missing row (the message overtook the commit) or a
   * locked one is tried again after growing pauses; anything else, or still nothing after the pauses, is dropped.
   */
  private async claimLater(first: ClaimByIdResult): Promise<IdOutcome> {
    let result = first;
    for (let retries = 0; ; ) {
      if (result.claimed) {
        this.launch(result.claimed, "wakeup");
        return "claimed";
      }
      this.claims.release();
      const transient = result.reason === "missing" || result.reason === "locked";
      if (!transient || retries === CLAIM_RETRY_DELAYS_MS.length) {
        logDroppedWakeup(this.logger, result, this.filter);
        return "dropped";
      }
      if (!(await this.pause(CLAIM_RETRY_DELAYS_MS[retries++]!))) return "abandoned";
      if (!(await this.claims.acquire())) return "abandoned";
      const next = await this.claimHeld([result.id]);
      if (!next) return "abandoned";
      result = next[0]!;
    }
  }

  /**
   * Claims due tasks for the free claim slots: what can run now plus the claim budget's lead (about 100 ms of
   * work at the recent pace, so a slow worker claims only what it can run and never empties the table for itself).
   * While at least half the lead is still in hand it claims nothing and says "full", so the poller comes back as slots
   * free: a fast worker claims hundreds of tasks per statement instead of one statement per freed slot. True when it
   * filled every free slot (there may be more).
   */
  private async pollDue(): Promise<boolean> {
    if (this.stopping) return false;
    this.claims.setLimit(this.budget.limit());
    const lead = Math.max(0, this.claims.limit - this.options.concurrency);
    if (this.claims.free < Math.max(1, Math.ceil(lead / 2))) return true;
    const taken = this.claims.tryAcquire(this.claims.free);
    if (taken === 0) return false;
    let rows: TaskRecord[];
    try {
      rows = await this.track(this.store.claimDue(taken, this.filter));
    } catch (error) {
      this.claims.release(taken);
      throw error;
    }
    const full = rows.length === taken;
    if (rows.length < taken) this.claims.release(taken - rows.length);
    for (const row of rows) this.launch(row, "poll");
    return full;
  }

  /** Runs a claimed task in the slot its claimer holds; frees the slot when the handler is done. */
  private launch(task: TaskRecord, via: "wakeup" | "poll"): void {
    const run = new TaskRun(task, this.options, this.store, this.outcomes, this.runHooks);
    this.runs.add(run);
    this.logger.info("task claimed", { taskId: run.task.id, taskName: run.task.name, attempt: run.task.attempts, via });
    if (this.stopping) {
      void this.release([run]);
      return;
    }
    if (this.slots.tryAcquire(1) === 1) {
      this.budget.started();
      run.start();
      return;
    }
    // A task claimed ahead waits here for a run slot; the heartbeat extends its lease meanwhile.
    void this.slots.acquire().then((ok) => {
      if (!ok || this.stopping) {
        if (ok) this.slots.release();
        void this.release([run]);
        return;
      }
      this.budget.started();
      run.start();
    });
  }

  /** The slots free when the handler is done, so the next claim overlaps the write of this outcome. */
  private readonly runHooks: RunHooks = {
    handlerDone: (run) => {
      this.claims.setLimit(this.budget.limit());
      this.claims.release();
      if (run.started) this.slots.release();
    },
    finished: (run) => void this.runs.delete(run),
  };

  /** Gives running tasks back to pending without using an attempt, and wakes a worker for them. */
  private async release(candidates: TaskRun[]): Promise<void> {
    const runs = candidates.filter((run) => run.preempt("released"));
    if (runs.length === 0) return;
    try {
      const released = await this.store.release(this.id, runs.map((run) => run.task.id));
      for (const { id, queue } of released) {
        this.logger.info("task released", { taskId: id, queue });
        this.sender.send([{ id, queue }]);
      }
    } catch (error) {
      this.logger.error("could not release tasks; the cleaner recovers them when their leases expire", {
        tasks: runs.map((run) => run.task.id),
        error: errorMessage(error),
      });
    }
    for (const run of runs) run.done();
  }

  private async shutdown(): Promise<void> {
    this.stopped.abort();
    for (const wake of this.pauses) wake();
    this.pauses.clear();
    await this.starting?.catch(() => {});
    if (!this.booted) return; // never started, or start() failed and closed what it had opened
    const graceMs = this.options.shutdownGraceMs;
    this.logger.info("worker stopping", { workerId: this.id, running: this.runs.size, graceMs });
    await this.poller.stop();
    await this.listener.cancel();
    this.slots.close();
    this.claims.close();
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, graceMs)));
    await Promise.race([this.settled(), graceOver, this.forced]);
    clearTimeout(graceTimer);
    await this.release([...this.runs]);
    await this.settled();
    await this.leases.stop();
    await this.outcomes.flush();
    await this.sender.close();
    await this.listener.close();
    await this.transport.close();
    await this.ownStore?.close();
    this.logger.info("worker stopped", { workerId: this.id });
  }

  /** Resolves when no claim is in flight and every run is settled. */
  private async settled(): Promise<void> {
    while (this.work.size > 0 || this.runs.size > 0) {
      await Promise.all([...this.work, ...[...this.runs].map((run) => run.finished)]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Sleeps `ms`; false when the worker began stopping meanwhile. */
  private pause(ms: number): Promise<boolean> {
    if (this.stopped.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pauses.delete(wake);
        resolve(true);
      }, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve(false);
      };
      this.pauses.add(wake);
    });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => {});
    return promise;
  }
}
