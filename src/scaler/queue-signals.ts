// The scaling signal per queue: arrival and completion rates, the backlog, the mean processing time and the workers
// they call for. Read at once from the store (its tallies and rows), for `task-runner status`, the dashboard and a
// Prometheus scrape; the product recommends, it never starts or stops a worker.

import type { Store } from "../store/store.js";
import { TALLY_SLOT_SECONDS } from "../store/tallies.js";
import { recommendWorkers } from "./recommend-workers.js";
import { resolveSignalOptions, type QueueSignalOptions } from "./scaler-options.js";

/** One queue's signal. A value that cannot be known is null, and `unknown` says why. */
export interface QueueSignal {
  queue: string;
  /** Seconds the rates cover (the window, out to whole 5-second slots; less while the tallies are younger than it). */
  windowSeconds: number;
  /** Tasks enqueued per second over the window; null when the window covers less than one slot. */
  arrivalRate: number | null;
  /** Tasks succeeded per second over the window (kept or deleted on success); null as arrivalRate. */
  completionRate: number | null;
  /** Tasks due and waiting for a worker now. */
  backlog: number;
  /** Mean run time of a succeeded task's handler over the processing window, in seconds; null when none was timed. */
  meanProcessingSeconds: number | null;
  /** The concurrency per worker the recommendation assumed. */
  concurrency: number;
  /** Workers to run (see recommendWorkers); null when an input is unknown. */
  recommendedWorkers: number | null;
  /** Why a value is null; absent when every value is known. */
  unknown?: string;
}

/** Reads the signal of every queue with tasks enqueued or succeeded within the windows, or due now; ordered by queue. */
export async function queueSignals(store: Pick<Store, "queueActivity" | "pendingAges">, options: QueueSignalOptions = {}): Promise<QueueSignal[]> {
  const resolved = resolveSignalOptions(options);
  const [activity, pending] = await Promise.all([
    store.queueActivity({ rateSeconds: resolved.windowSeconds, processingSeconds: resolved.processingWindowSeconds }),
    store.pendingAges(),
  ]);
  const backlogs = new Map(pending.map((row) => [row.queue, row.due]));
  const byQueue = new Map(activity.map((row) => [row.queue, row]));
  const queues = [...new Set([...byQueue.keys(), ...[...backlogs].filter(([, due]) => due > 0).map(([queue]) => queue)])].sort();
  return queues.map((queue): QueueSignal => {
    const row = byQueue.get(queue);
    const backlog = backlogs.get(queue) ?? 0;
    const concurrency = resolved.concurrencyOf(queue);
    // Without a row, nothing was enqueued or succeeded within the windows, which the read covered in full.
    const covered = row ? row.rateSeconds : resolved.windowSeconds;
    const windowSeconds = Math.max(0, covered);
    if (covered < TALLY_SLOT_SECONDS) {
      return {
        queue,
        windowSeconds,
        arrivalRate: null,
        completionRate: null,
        backlog,
        meanProcessingSeconds: null,
        concurrency,
        recommendedWorkers: null,
        unknown: `the tallies began ${windowSeconds.toFixed(1)} s ago, less than one ${TALLY_SLOT_SECONDS}-second slot`,
      };
    }
    const arrivalRate = (row?.arrived ?? 0) / covered;
    const completionRate = (row?.succeeded ?? 0) / covered;
    const meanProcessingSeconds = row && row.timed > 0 ? row.runMs / row.timed / 1000 : null;
    const { workers, unknown } = recommendWorkers({
      arrivalRate,
      meanProcessingSeconds,
      backlog,
      concurrency,
      headroom: resolved.headroom,
      drainSeconds: resolved.drainSeconds,
    });
    const signal: QueueSignal = { queue, windowSeconds, arrivalRate, completionRate, backlog, meanProcessingSeconds, concurrency, recommendedWorkers: workers };
    return unknown === undefined ? signal : { ...signal, unknown };
  });
}
