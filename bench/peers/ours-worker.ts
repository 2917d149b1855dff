// The worker side of prisma-task-queue in a benchmark child: createWorker() with the no-op task, silent logs.
// BENCH_OURS_WORKER_OPTIONS (JSON) adds worker options, to measure settings (e.g. a proposed claimAhead) without edits.
// BENCH_TRACE_DIR (set by bench/trace-latency.ts) records the worker's trace points and store operations there.

import { openStore, silentLogger } from "../../src/index.js";
import { createWorker, type WorkerOptions } from "../../src/worker/create-worker.js";
import { WORKER_POOL } from "../../src/worker/task-worker.js";
import { TraceRecorder } from "../trace/recorder.js";
import { benchTasks } from "./ours-tasks.js";
import type { WorkerHandle, WorkerStart } from "./peer.js";

/** The worker's leaseMs when the options leave it out. */
const DEFAULT_LEASE_MS = 30_000;

export async function startWorker({ target, concurrency, onRun }: WorkerStart): Promise<WorkerHandle> {
  const extra = JSON.parse(process.env.BENCH_OURS_WORKER_OPTIONS ?? "{}") as Partial<WorkerOptions>;
  const traceDir = process.env.BENCH_TRACE_DIR;
  const recorder = traceDir ? new TraceRecorder() : undefined;
  // Traced: the store the worker would open itself (its own pool settings), with its operations timed.
  const store = recorder?.wrapStore(openStore(target.databaseUrl, WORKER_POOL));
  const leaseMs = extra.leaseMs ?? DEFAULT_LEASE_MS;
  const started = (n: number, id: string, leaseExpiresAtMs: number) => {
    recorder?.handlerStarted(n, id);
    onRun(n, leaseExpiresAtMs - leaseMs);
  };
  const worker = createWorker({
    tasks: benchTasks(started),
    databaseUrl: target.databaseUrl,
    store,
    amqpUrl: target.amqpUrl,
    amqpPrefix: target.prefix,
    concurrency,
    logger: silentLogger,
    ...extra,
  });
  await worker.start();
  return {
    stop: async () => {
      await worker.stop();
      recorder?.save(`${traceDir}/worker-${process.pid}.json`);
      await store?.close();
    },
  };
}
