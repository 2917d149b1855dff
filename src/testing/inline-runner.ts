// Runs tasks the moment they are handed over, with the worker's own parts: the store's claim by ids (status running,
// attempts counted, lease set), a TaskRun per task (payload check, timeout, transactional handlers), the OutcomeWriter
// (succeeded, pending for a retry, or dead) and the LeaseKeeper's heartbeat. Nothing polls: only what is handed over runs.

import { errorMessage } from "../error-text.js";
import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { ClaimByIdResult } from "../store/task-writes.js";
import { LeaseKeeper } from "../worker/lease-keeper.js";
import { TaskRun, type RunHooks } from "../worker/task-run.js";
import type { ResolvedWorkerOptions } from "../worker/worker-options.js";
import type { InlineRun } from "./inline-run.js";
import { ObservedOutcomes } from "./observed-outcomes.js";

/** A task to run: its id, and the name and queue the claim must allow. */
export interface RunTarget {
  id: string;
  name: string;
  queue: string;
}

/** Pauses before claiming again a task another transaction holds locked (MySQL's SKIP LOCKED): ~1.5 s in all. */
const LOCKED_RETRY_DELAYS_MS = [50, 100, 200, 400, 800];

export class InlineRunner {
  private readonly runs = new Set<TaskRun>();
  private readonly work = new Set<Promise<void>>();
  private readonly outcomes: ObservedOutcomes;
  private readonly leases: LeaseKeeper;
  private readonly hooks: RunHooks = { handlerDone: () => {}, finished: (run) => void this.runs.delete(run) };
  /** Settled runs with the order of their claim, so take() lists them as they started, whichever settled first. */
  private finished: Array<{ order: number; run: InlineRun }> = [];
  private claimed = 0;
  private problems: Error[] = [];

  constructor(
    private readonly store: Store,
    private readonly options: ResolvedWorkerOptions,
  ) {
    const shared = { store, owner: options.workerId, leaseMs: options.leaseMs, logger: options.logger };
    this.outcomes = new ObservedOutcomes({ ...shared, deadLetters: undefined });
    this.leases = new LeaseKeeper({ ...shared, runs: () => this.runs });
  }

  /** True when the runner has a handler for task `name`. */
  handles(name: string): boolean {
    return this.options.handled.has(name);
  }

  /** Claims these tasks and runs those it gets, in the background; idle() waits for them. */
  run(targets: readonly RunTarget[]): void {
    const mine = targets.filter((target) => this.handles(target.name));
    if (mine.length > 0) this.track(this.claimAndRun(mine));
  }

  /** Resolves when nothing handed over is still being claimed or run, including tasks the runs enqueued. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  /** The runs settled and the problems met since the last take(), oldest (first claimed) first. */
  take(): { runs: InlineRun[]; problems: Error[] } {
    const runs = this.finished.sort((a, b) => a.order - b.order).map((entry) => entry.run);
    const taken = { runs, problems: this.problems };
    this.finished = [];
    this.problems = [];
    return taken;
  }

  /** Waits for the work in hand, then stops the heartbeat and writes what is left to write. */
  async close(): Promise<void> {
    await this.idle();
    await this.leases.stop();
    await this.outcomes.flush();
  }

  private async claimAndRun(targets: readonly RunTarget[]): Promise<void> {
    let waiting = targets;
    for (let retry = 0; waiting.length > 0; retry++) {
      let results: ClaimByIdResult[];
      try {
        results = await this.store.claimByIds(
          waiting.map((target) => target.id),
          { owner: this.options.workerId, leaseMs: this.options.leaseMs, names: this.options.names, queues: [...new Set(waiting.map((t) => t.queue))] },
        );
      } catch (error) {
        this.problems.push(new Error(`could not claim ${describeTargets(waiting)}: ${errorMessage(error)}`, { cause: error }));
        return;
      }
      const byId = new Map(results.map((result) => [result.id, result]));
      const locked: RunTarget[] = [];
      for (const target of waiting) {
        const result = byId.get(target.id) ?? { id: target.id, claimed: null, reason: "missing" as const };
        if (result.claimed) this.track(this.execute(result.claimed));
        else if (result.reason === "locked" && retry < LOCKED_RETRY_DELAYS_MS.length) locked.push(target);
        else this.problems.push(new Error(`${describeTargets([target])} was not run inline: ${unclaimedReason(result.reason)}.`));
      }
      if (locked.length > 0) await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_DELAYS_MS[retry]));
      waiting = locked;
    }
  }

  private async execute(task: TaskRecord): Promise<void> {
    const order = this.claimed++;
    const run = new TaskRun(task, this.options, this.store, this.outcomes, this.hooks, { dialect: this.store.dialect, transport: "inline" });
    this.runs.add(run);
    this.leases.start();
    run.start();
    await run.finished;
    if (this.runs.size === 0) void this.leases.stop();
    const thrown = this.outcomes.takeThrown(task.id);
    let row: TaskRecord | undefined;
    try {
      row = await this.store.findTask(task.id);
    } catch (error) {
      this.problems.push(new Error(`${describeTargets([task])} ran, but reading it back failed: ${errorMessage(error)}`, { cause: error }));
      return;
    }
    if (!row) {
      this.problems.push(new Error(`${describeTargets([task])} ran, and then its row was gone (deleted or pruned).`));
      return;
    }
    this.finished.push({
      order,
      run: {
        id: task.id,
        name: task.name,
        payload: task.payload,
        attempt: task.attempts,
        status: row.status,
        ...(thrown === undefined && row.status === "succeeded" ? {} : { error: thrown }),
        result: row.result,
        task: withoutNow(row),
      },
    });
  }

  private track(promise: Promise<void>): void {
    const tracked = promise.catch((error: unknown) => void this.problems.push(error instanceof Error ? error : new Error(String(error))));
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }
}

function describeTargets(targets: ReadonlyArray<{ id: string; name: string }>): string {
  return targets.map((target) => `task "${target.name}" (id ${target.id})`).join(", ");
}

function unclaimedReason(reason: string): string {
  switch (reason) {
    case "not-pending":
      return "it was no longer pending when the claim came (another worker took it: stop other workers in tests that use inlineQueue(), or it was cancelled)";
    case "locked":
      return "another transaction held its row locked for over 1.5 s";
    case "not-due":
      return "it was not due";
    case "missing":
      return "its row was not found";
    default:
      return `the claim refused it (${reason})`;
  }
}

/** findTask adds the database clock as `now`; a run reports the row alone. */
function withoutNow(row: TaskRecord & { now?: Date }): TaskRecord {
  const { now: _now, ...task } = row;
  return task;
}
