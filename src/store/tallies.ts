// The tallies behind the scaling signal: what the completion batches, the deletions on success and the prune record
// in `<table>_tallies` (a row per queue, writer and 5-second slot), and what the store reads back per queue.

/** Each tally row covers this many seconds of the database's clock (its slot starts at a multiple of it, Unix seconds). */
export const TALLY_SLOT_SECONDS = 5;

/** Tally rows older than this are pruned; the signal's windows may not be longer. */
export const TALLY_KEEP_SECONDS = 900;

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
