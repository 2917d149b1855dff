// The successes a worker counts for the scaling signal: per queue, in memory, written to its tally rows at most
// TALLY_WRITE_MS after the first one counted (one statement per write, not one per completion) and whenever the
// outcomes are flushed (a worker's stop, the end of a serverless pass). A write that fails keeps its counts for the
// next one (armed by the next success, or the next flush). What a crash loses: the successes of the last TALLY_WRITE_MS at most, which the signal's windows (a minute
// by default) hardly notice; the completions themselves are written as ever.

import { errorMessage } from "../error-text.js";
import type { Logger } from "../logger.js";
import { mergeTallies, TALLY_WRITE_MS, type SuccessTally } from "../store/tallies.js";
import type { WorkerStore } from "../store/store.js";

export class SuccessTallies {
  private counts = new Map<string, SuccessTally>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastProblem: string | undefined;

  constructor(
    private readonly store: Pick<WorkerStore, "addSuccessTallies">,
    private readonly writer: string,
    private readonly logger: Logger,
  ) {}

  /** Counts one success of `queue`, timed when `runMs` is known. */
  count(queue: string, runMs: number | undefined): void {
    let tally = this.counts.get(queue);
    if (!tally) this.counts.set(queue, (tally = { queue, succeeded: 0, timed: 0, runMs: 0 }));
    tally.succeeded += 1;
    if (runMs !== undefined && Number.isFinite(runMs)) {
      tally.timed += 1;
      tally.runMs += Math.max(0, Math.round(runMs));
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.write(), TALLY_WRITE_MS);
      this.timer.unref();
    }
  }

  /** Writes what was counted so far (after any write under way); resolves once it is written or kept for the next one. */
  write(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeNow());
    return this.writing;
  }

  private async writeNow(): Promise<void> {
    if (this.counts.size === 0) return;
    const tallies = [...this.counts.values()];
    this.counts = new Map();
    try {
      await this.store.addSuccessTallies(this.writer, tallies);
      this.lastProblem = undefined;
    } catch (error) {
      // Kept for the next write, with what was counted meanwhile.
      this.counts = new Map(mergeTallies([...tallies, ...this.counts.values()]).map((tally) => [tally.queue, tally]));
      const problem = errorMessage(error);
      // Said once until a write succeeds again: a missing tally table would otherwise repeat it every second.
      if (problem !== this.lastProblem) this.logger.warn("scaling tallies not written; kept for the next write", { error: problem });
      this.lastProblem = problem;
    }
  }
}
