// The worker side of graphile-worker in a benchmark child: run() with the no-op task and the settings of
// graphile-worker-settings.ts.

import { run } from "graphile-worker";
import { GRAPHILE_TASK, graphileWorkerOptions, silentGraphileLogger } from "./graphile-worker-settings.js";
import type { WorkerHandle, WorkerStart } from "./peer.js";

export async function startWorker({ target, concurrency, onRun }: WorkerStart): Promise<WorkerHandle> {
  const runner = await run({
    taskList: { [GRAPHILE_TASK]: async (payload) => void onRun((payload as { n: number }).n) },
    noHandleSignals: true,
    logger: silentGraphileLogger,
    crontab: "",
    preset: { worker: graphileWorkerOptions(target.databaseUrl, concurrency) },
  });
  return { stop: () => runner.stop() };
}
