// The tallies behind the scaling signal: what the completion batches, the deletions on success and the prune record
// in `<table>_tallies` (a row per queue, writer and 5-second slot), and what the store reads back per queue.

/** Each tally row covers this many seconds of the database's clock (its slot starts at a multiple of it, Unix seconds). */
export const TALLY_SLOT_SECONDS = 5;

/** Tally rows older than this are pruned; the signal's windows may not be longer. */
export const TALLY_KEEP_SECONDS = 900;

/** How often a worker writes the successes it counted (addSuccessTallies), in ms. */
export const TALLY_WRITE_MS = 1_000;

/** Successes of one queue a worker counted since its last write. */
export interface SuccessTally {
  queue: string;
  succeeded: number;
  /** Those whose handler's run time is known. */
  timed: number;
  /** Their run times, summed, in ms. */
  runMs: number;
}

/** `tallies` with one entry per queue (summed), empty ones left out. */
export function mergeTallies(tallies: readonly SuccessTally[]): SuccessTally[] {
  const byQueue = new Map<string, SuccessTally>();
  for (const tally of tallies) {
    const sum = byQueue.get(tally.queue) ?? { queue: tally.queue, succeeded: 0, timed: 0, runMs: 0 };
    sum.succeeded += tally.succeeded;
    sum.timed += tally.timed;
    sum.runMs += tally.runMs;
    byQueue.set(tally.queue, sum);
  }
  return [...byQueue.values()].filter((sum) => sum.succeeded > 0);
}

/** What queueActivity reads: the windows, in seconds back from the database's now. */
export interface ActivityWindows {
  /** The window of the arrival and completion counts. */
  rateSeconds: number;
  /** The window of the mean processing time. */
  processingSeconds: number;
}

/** One queue's activity over the windows, every count by the database's clock. */
export interface QueueActivity {
  queue: string;
  /**
   * Seconds the counts cover: from the start of the slot the window begins in (or the second the tallies began, when
   * that is later) to now.
   */
  rateSeconds: number;
  /** Tasks enqueued within rateSeconds: rows still in the table, and rows deleted since (on success, or pruned). */
  arrived: number;
  /** Tasks that succeeded within rateSeconds (kept or deleted on success). */
  succeeded: number;
  /** Seconds the processing counts cover, as rateSeconds. */
  processingSeconds: number;
  /** Successes within processingSeconds whose run time the worker reported. */
  timed: number;
  /** Their run time, summed, in milliseconds. */
  runMs: number;
}
