// graphile-worker's fastest documented settings (worker.graphile.org/docs/performance: localQueue, batched
// completion, prepared statements), shared by the harness (for the report) and the worker child.

import { Logger } from "graphile-worker";

/** The identifier of the benchmark's no-op task. */
export const GRAPHILE_TASK = "noop";

/** Drops every log line, as the other peers do. */
export const silentGraphileLogger = new Logger(() => () => {});

/** The preset.worker options for a pool of `concurrency` jobs on `connectionString`. */
export function graphileWorkerOptions(connectionString: string, concurrency: number) {
  return {
    connectionString,
    concurrentJobs: concurrency,
    // The docs: "10 or concurrentJobs + 2, whichever is larger".
    maxPoolSize: Math.max(10, concurrency + 2),
    // New jobs arrive by LISTEN/NOTIFY; the poll only matters for jobs that were not announced.
    pollInterval: 100,
    preparedStatements: true,
    // The performance page's benchmark preset: fetch and lock 500 jobs at a time, complete and fail in batches.
    localQueue: { size: 500 },
    completeJobBatchDelay: 0,
    failJobBatchDelay: 0,
  };
}
