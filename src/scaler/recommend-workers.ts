// The scaling signal's formula, pure: how many workers keep up with the arrivals (Little's law, with headroom) and
// drain the backlog within a target time.

/** What the recommendation is computed from. */
export interface WorkerInputs {
  /** Tasks enqueued per second. */
  arrivalRate: number;
  /** Mean run time of a task's handler, in seconds; null when unknown (no success was timed in the window). */
  meanProcessingSeconds: number | null;
  /** Tasks due and waiting for a worker. */
  backlog: number;
  /** Tasks one worker runs at once (its `concurrency`). */
  concurrency: number;
  /** Factor over the steady-state need (1.2: 20% spare). */
  headroom: number;
  /** Seconds within which the current backlog should be drained. */
  drainSeconds: number;
}

/** How many workers, and what made up the number. */
export interface WorkerRecommendation {
  /** Workers to run; null when the inputs cannot say (see `unknown`). 0 when nothing arrives and nothing waits. */
  workers: number | null;
  /** Workers busy all the time at the arrival rate: arrivalRate × meanProcessingSeconds ÷ concurrency. */
  steady: number | null;
  /** Workers that drain the backlog within drainSeconds: backlog ÷ (drainSeconds × concurrency ÷ meanProcessingSeconds). */
  drain: number | null;
  /** Why workers is null. */
  unknown?: string;
}

/**
 * workers = ceil(steady × headroom + drain), where one worker completes concurrency ÷ meanProcessingSeconds tasks a
 * second. Without a mean processing time it can only say 0 (nothing arrives, nothing waits) or that it does not know.
 */
export function recommendWorkers(inputs: WorkerInputs): WorkerRecommendation {
  const { arrivalRate, meanProcessingSeconds, backlog, concurrency, headroom, drainSeconds } = inputs;
  if (arrivalRate <= 0 && backlog <= 0) return { workers: 0, steady: 0, drain: 0 };
  if (meanProcessingSeconds === null) {
    return { workers: null, steady: null, drain: null, unknown: "no success was timed within the processing window, so the processing time is unknown" };
  }
  const perWorker = concurrency / Math.max(meanProcessingSeconds, 1e-6);
  const steady = arrivalRate / perWorker;
  const drain = backlog / (drainSeconds * perWorker);
  // Rounded first, so that 2.0000000001 from floating point is 2 workers, not 3.
  const workers = Math.max(1, Math.ceil(Number((steady * headroom + drain).toFixed(9))));
  return { workers, steady, drain };
}
