// The heartbeat: every leaseMs/3, one statement extends the leases of every task this worker is running.
// A task whose lease turns out to be held by someone else is preempted: its signal aborts and its outcome is never written.

import type { Logger } from "../logger.js";
import type { WorkerStore } from "../store/store.js";
import { errorMessage } from "../error-text.js";
import type { TaskRun } from "./task-run.js";
import { latestRuns } from "./latest-runs.js";

interface LeaseKeeperOptions {
  store: WorkerStore;
  owner: string;
  leaseMs: number;
  logger: Logger;
  /** The runs of the worker right now. */
  runs: () => Iterable<TaskRun>;
}

export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private failures = 0;

  constructor(private readonly options: LeaseKeeperOptions) {}

  start(): void {
    this.timer ??= setInterval(
      () => {
        this.beating ??= this.beat().finally(() => (this.beating = undefined));
      },
      Math.max(10, Math.floor(this.options.leaseMs / 3)),
    );
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
  }

  /** Extends every held lease once; exposed for tests and for the worker's shutdown. */
  async beat(): Promise<void> {
    // One id per statement: an earlier run of a task claimed again is not extended (it lost its lease when the task
    // was recovered), so the stores can tell each id's run apart.
    const held = latestRuns([...this.options.runs()].filter((run) => run.holdsLease));
    if (held.length === 0) return;
    const { store, owner, leaseMs, logger } = this.options;
    let states;
    try {
      states = await store.extendLeases(
        owner,
        held.map((run) => run.task.id),
        leaseMs,
        held.map((run) => run.task.attempts),
      );
      this.failures = 0;
    } catch (error) {
      this.failures += 1;
      if (this.failures === 1 || this.failures % 10 === 0) {
        logger.warn("heartbeat could not extend leases; tasks may be recovered by the cleaner if this lasts", {
          tasks: held.length,
          error: errorMessage(error),
        });
      }
      return;
    }
    const lost = new Set(states.filter((state) => state.lost).map((state) => state.id));
    for (const run of held) if (lost.has(run.task.id)) run.preempt("lost");
  }
}
