// How many tasks a worker may hold claimed: its concurrency, plus as many as it starts in AHEAD_WINDOW_MS at its
// recent pace, up to claimAhead. Fast handlers get large claims (one statement for hundreds of tasks); slow ones
// claim little ahead, so a worker never sits on more than a short while of work that another worker could run.

/** How much work, in time, a worker claims beyond what runs now. */
export const AHEAD_WINDOW_MS = 100;
/** The pace is re-measured once this long has passed, or once this many runs started (a fast pace is known sooner). */
const MEASURE_EVERY_MS = AHEAD_WINDOW_MS;
const MEASURE_EVERY_STARTS = 64;

/** The most unacknowledged messages a broker lets one consumer hold (AMQP's prefetch count is 16 bits). */
const MAX_PREFETCH = 65_535;

/**
 * Wake-ups a worker holds unacknowledged per queue: as many as the tasks it may hold claimed (concurrency +
 * claimAhead). A wake-up is acknowledged once its ids are claimed, so when every message names one task (a backlog of
 * one-task transactions) the prefetch is how many claims can be in flight: at `concurrency` alone, every claim
 * statement took at most that many ids and the drain waited a broker round trip per handful of tasks.
 */
export function wakeupPrefetch(concurrency: number, claimAhead: number): number {
  return Math.min(MAX_PREFETCH, concurrency + claimAhead);
}

export class ClaimBudget {
  private starts = 0;
  /** Runs started per ms, smoothed. */
  private pace = 0;

  constructor(
    private readonly concurrency: number,
    private readonly maxAhead: number,
    private since = performance.now(),
  ) {}

  /** Counts a run start. */
  started(): void {
    this.starts += 1;
  }

  /** The number of tasks the worker may hold claimed now. */
  limit(now = performance.now()): number {
    const elapsed = now - this.since;
    const counted = this.starts >= MEASURE_EVERY_STARTS;
    if (elapsed >= MEASURE_EVERY_MS || (counted && elapsed > 0)) {
      const pace = this.starts / elapsed;
      // A pace counted from many starts is taken at once when it rises (a burst should batch from its start); a
      // pace from a few starts in a time window is noisy, so it is averaged with the last one, as is every fall.
      this.pace = counted && pace > this.pace ? pace : (this.pace + pace) / 2;
      this.starts = 0;
      this.since = now;
    }
    return this.concurrency + Math.min(this.maxAhead, Math.ceil(this.pace * AHEAD_WINDOW_MS));
  }
}
