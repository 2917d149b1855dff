// The worker side of prisma-task-queue in a benchmark child: createWorker() with the no-op task, silent logs.
// BENCH_OURS_WORKER_OPTIONS (JSON) adds worker options, to measure settings (e.g. a proposed claimAhead) without edits.

import { silentLogger } from "../../src/index.js";
import { createWorker, type WorkerOptions } from "../../src/worker/create-worker.js";
import { benchTasks } from "./ours-tasks.js";
import type { WorkerHandle, WorkerStart } from "./peer.js";

export async function startWorker({ target, concurrency, onRun }: WorkerStart): Promise<WorkerHandle> {
  const extra = JSON.parse(process.env.BENCH_OURS_WORKER_OPTIONS ?? "{}") as Partial<WorkerOptions>;
  const worker = createWorker({
    tasks: benchTasks(onRun),
    databaseUrl: target.databaseUrl,
    amqpUrl: target.amqpUrl,
    amqpPrefix: target.prefix,
    concurrency,
    logger: silentLogger,
    ...extra,
  });
  await worker.start();
  return { stop: () => worker.stop() };
}
