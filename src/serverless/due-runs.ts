// The runs of one runDueTasks() call: claims due tasks for its free run slots (only those whose timeout fits before
// the call's deadline), runs them as a worker does (payload check, handler, timeout, outcome written under the lease
// and the run's attempt), and claims again as slots free until nothing due is left or nothing fits any more.

import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { ClaimFilter, FailedTask } from "../store/task-writes.js";
import type { TaskDefinition } from "../define-tasks.js";
import { OutcomeWriter } from "../worker/outcome-writer.js";
import { DEFAULT_TIMEOUT_MS, TaskRun, type RunHooks } from "../worker/task-run.js";
import type { ResolvedWorkerOptions } from "../worker/worker-options.js";
import { mergeLimits } from "../worker/limits-view.js";
import type { ClaimLimits, QueueState } from "../store/queue-controls.js";

/** A lease outlasts the call's budget by this much, so a live call never loses one and needs no heartbeat. */
export const LEASE_MARGIN_MS = 30_000;

/** An outcome writer that counts what it wrote. */
class CountingOutcomes extends OutcomeWriter {
  succeededRuns = 0;
  failedRuns = 0;

  override async succeed(task: TaskRecord, value: unknown, startedAt: number, deleteIfNoResult = false): Promise<boolean> {
    const written = await super.succeed(task, value, startedAt, deleteIfNoResult);
    if (written) this.succeededRuns += 1;
    return written;
  }

  override async fail(task: TaskRecord, definition: TaskDefinition | undefined, thrown: unknown, finalReason?: string): Promise<FailedTask | undefined> {
    const row = await super.fail(task, definition, thrown, finalReason);
    if (row) this.failedRuns += 1;
    return row;
  }
}

export class DueRuns {
  ran = 0;
  private readonly outcomes: CountingOutcomes;
  private readonly running = new Set<TaskRun>();
  private freed: (() => void) | undefined;
  /** The limited queues' limits, when known (useLimits): their tasks are claimed only by a claim that counts them. */
  private limits: ClaimLimits | undefined;
  private readonly hooks: RunHooks = {
    handlerDone: () => {},
    finished: (run) => {
      this.running.delete(run);
      this.freed?.();
    },
    committed: () => {
      this.outcomes.succeededRuns += 1;
    },
  };

  constructor(
    private readonly options: ResolvedWorkerOptions,
    private readonly store: Store,
    /** performance.now() by which every handler must be over. */
    private readonly deadline: number,
  ) {
    // A child's end makes its waiting parent due now: a later claim of this pass, or the next pass, runs it.
    this.outcomes = new CountingOutcomes({ store, owner: options.workerId, leaseMs: options.leaseMs, logger: options.logger, deadLetters: undefined });
  }

  get succeeded(): number {
    return this.outcomes.succeededRuns;
  }

  get failed(): number {
    return this.outcomes.failedRuns;
  }

  /** Claims due tasks that fit for the free slots and starts them; the tasks claimed (none: nothing due fits). */
  async claimFitting(): Promise<TaskRecord[]> {
    const free = this.options.concurrency - this.running.size;
    const names = this.fittingNames();
    if (free <= 0 || names.length === 0) return [];
    const filter = this.filter(names);
    const claimed = await this.store.claimDue(free, this.limits ? { ...filter, limits: this.limits } : filter);
    for (const task of claimed) this.start(task);
    return claimed;
  }

  /** Takes the queues' limits from their rows (with the tasks' own per key), for the claims of due tasks to count. */
  useLimits(queues: readonly QueueState[]): void {
    const limits = mergeLimits(queues, this.options.limits, this.options.queues);
    this.limits = Object.keys(limits).length > 0 ? limits : undefined;
  }

  /** Claims those of `ids` that are due and fit, and starts them; the tasks claimed. */
  async claimIds(ids: readonly string[]): Promise<TaskRecord[]> {
    const names = this.fittingNames();
    if (ids.length === 0 || names.length === 0) return [];
    const results = await this.store.claimByIds(ids, this.filter(names));
    const claimed = results.flatMap((result) => (result.claimed ? [result.claimed] : []));
    for (const task of claimed) this.start(task);
    return claimed;
  }

  /** Waits for the runs under way and their outcomes, claiming nothing more. */
  async settle(): Promise<void> {
    await Promise.all([...this.running].map((run) => run.finished));
    await this.outcomes.flush();
  }

  /**
   * Claims again as runs end (`claimed`: what the claims so far took), until a claim finds nothing while nothing runs
   * ("idle") or no handled task's timeout fits in the time left ("budget"); waits for the runs under way and their
   * outcomes.
   */
  async drain(claimed: number): Promise<"idle" | "budget"> {
    let last = claimed;
    let ended: "idle" | "budget" | undefined;
    while (ended === undefined) {
      if (this.fittingNames().length === 0) {
        ended = "budget";
        break;
      }
      if (last === 0 && this.running.size === 0) {
        ended = "idle";
        break;
      }
      // A slot frees (or nothing was claimed while runs go on: a retry may come due as they end).
      if (this.running.size > 0) await new Promise<void>((resolve) => (this.freed = resolve));
      this.freed = undefined;
      last = (await this.claimFitting()).length;
    }
    await this.settle();
    return ended;
  }

  /** The claims' filter for `names` (no limits: a limited queue's tasks are left to a claim that counts them). */
  private filter(names: string[]): ClaimFilter {
    return { owner: this.options.workerId, leaseMs: this.options.leaseMs, names, queues: this.options.queues };
  }

  private start(task: TaskRecord): void {
    const run = new TaskRun(task, this.options, this.store, this.outcomes, this.hooks);
    this.running.add(run);
    this.ran += 1;
    run.start();
  }

  /** The handled task names whose timeout ends before the deadline if started now. */
  private fittingNames(): string[] {
    const left = this.deadline - performance.now();
    return this.options.names.filter((name) => (this.options.handled.get(name)!.timeoutMs ?? DEFAULT_TIMEOUT_MS) <= left);
  }
}
