// Runs claimed tasks within the concurrency limit: a claimed task starts when a run slot is free (claimed ahead, it
// waits for one), frees its slots when its handler is done, and is given back unstarted when the worker stops.

import { errorMessage } from "../error-text.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { WakeupSender } from "../wakeups/wakeup-sender.js";
import type { ClaimBudget } from "./claim-budget.js";
import type { OutcomeWriter } from "./outcome-writer.js";
import type { Slots } from "./slots.js";
import type { StopSignal } from "./stop-signal.js";
import { TaskRun, type RunHooks } from "./task-run.js";
import { latestRuns } from "./latest-runs.js";
import type { ResolvedWorkerOptions } from "./worker-options.js";
import type { RunPlace } from "../telemetry/telemetry-events.js";

interface RunLauncherParts {
  options: ResolvedWorkerOptions;
  store: Store;
  outcomes: OutcomeWriter;
  sender: WakeupSender;
  logger: Logger;
  stop: StopSignal;
  /** The run slots: as many as `concurrency`. */
  slots: Slots;
  /** The claim slots: tasks held claimed, running or waiting for a run slot. */
  claims: Slots;
  budget: ClaimBudget;
  /** The runs in hand, from claim until their outcome is written. */
  runs: Set<TaskRun>;
  /** Told the queue of each run whose outcome is written (or that was given back): its concurrency slot is free. */
  runEnded?: (queue: string, name: string) => void;
  /** The dialect and transport, for the runs' spans and metrics. */
  place?: RunPlace;
}

export class RunLauncher {
  constructor(private readonly parts: RunLauncherParts) {}

  /** Runs a claimed task in the slot its claimer holds; frees the slot when the handler is done. */
  launch(task: TaskRecord, via: "wakeup" | "timer" | "poll"): void {
    const { options, store, outcomes, logger, stop, slots, budget, runs } = this.parts;
    const run = new TaskRun(task, options, store, outcomes, this.runHooks, this.parts.place);
    // Claimed again while an earlier run of it is still in hand: that run's lease was recovered, so it is lost (its
    // outcome, fenced by its attempt, could not be written anyway). A worker holds one run of a task at a time.
    for (const earlier of runs) if (earlier.task.id === task.id && earlier.task.attempts < task.attempts) earlier.preempt("lost");
    runs.add(run);
    logger.info("task claimed", { taskId: task.id, taskName: task.name, attempt: task.attempts, queue: task.queue, via });
    if (stop.stopping) {
      void this.release([run]);
      return;
    }
    if (slots.tryAcquire(1) === 1) {
      budget.started();
      run.start();
      return;
    }
    // A task claimed ahead waits here for a run slot; the heartbeat extends its lease meanwhile.
    void slots.acquire().then((ok) => {
      if (!ok || stop.stopping) {
        if (ok) slots.release();
        void this.release([run]);
        return;
      }
      budget.started();
      run.start();
    });
  }

  /** The slots free when the handler is done, so the next claim overlaps the write of this outcome. */
  private readonly runHooks: RunHooks = {
    handlerDone: (run) => {
      this.parts.claims.setLimit(this.parts.budget.limit());
      this.parts.claims.release();
      if (run.started) this.parts.slots.release();
    },
    finished: (run) => {
      this.parts.runs.delete(run);
      this.parts.runEnded?.(run.task.queue, run.task.name);
    },
  };

  /** Gives running tasks back to pending without using an attempt, and wakes a worker for them. */
  async release(candidates: TaskRun[]): Promise<void> {
    const { store, sender, logger, options } = this.parts;
    const runs = latestRuns(candidates).filter((run) => run.preempt("released"));
    if (runs.length === 0) return;
    try {
      const released = await store.release(
        options.workerId,
        runs.map((run) => run.task.id),
        runs.map((run) => run.task.attempts),
      );
      for (const { id, queue } of released) {
        logger.info("task released", { taskId: id, queue });
        sender.send([{ id, queue }]);
      }
    } catch (error) {
      logger.error("could not release tasks; the cleaner recovers them when their leases expire", {
        tasks: runs.map((run) => run.task.id),
        error: errorMessage(error),
      });
    }
    for (const run of runs) run.done();
  }
}
