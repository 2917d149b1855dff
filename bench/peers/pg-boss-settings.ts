// pg-boss's fastest documented settings in its current major (12): LISTEN/NOTIFY wake-ups on a notify queue,
// batched fetch with burst polling, the lowest polling interval it accepts. Shared by the harness and the child.

import type { ConstructorOptions, WorkOptions } from "pg-boss";

/** The queue of the benchmark's no-op jobs. */
export const PGBOSS_QUEUE = "noop";

/**
 * Jobs fetched (and completed) per statement by each of the `localConcurrency` fetch loops. Chosen by measuring
 * 1, 10, 50, 100, 250, 500 and 1000 here (see docs/benchmarks.md); BENCH_PGBOSS_BATCH_SIZE overrides it.
 */
export const PGBOSS_BATCH_SIZE = Number(process.env.BENCH_PGBOSS_BATCH_SIZE ?? 500);

/** Options of the PgBoss instance that runs the workers. */
export function pgBossWorkerInstance(connectionString: string, concurrency: number): ConstructorOptions {
  return {
    connectionString,
    max: concurrency + 2,
    useListenNotify: true,
    // No cron schedules in the benchmark; the supervisor (maintenance) keeps its defaults.
    schedule: false,
  };
}

/** Options of work(): `concurrency` fetch loops, each taking a batch of jobs. */
export function pgBossWorkOptions(concurrency: number): WorkOptions {
  return {
    localConcurrency: concurrency,
    batchSize: PGBOSS_BATCH_SIZE,
    burstWhenBatchFull: true,
    pollingIntervalSeconds: 0.5,
    notifyPollingIntervalSeconds: 0.5,
  };
}
