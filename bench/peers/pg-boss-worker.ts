// The worker side of pg-boss in a benchmark child: one PgBoss instance, work() on the no-op queue with the
// settings of pg-boss-settings.ts.

import { PgBoss } from "pg-boss";
import type { WorkerHandle, WorkerStart } from "./peer.js";
import { PGBOSS_QUEUE, pgBossWorkerInstance, pgBossWorkOptions } from "./pg-boss-settings.js";

export async function startWorker({ target, concurrency, onRun }: WorkerStart): Promise<WorkerHandle> {
  const boss = new PgBoss(pgBossWorkerInstance(target.databaseUrl, concurrency));
  boss.on("error", () => {});
  await boss.start();
  await boss.work<{ n: number }>(PGBOSS_QUEUE, pgBossWorkOptions(concurrency), async (jobs) => {
    for (const job of jobs) onRun(job.data.n);
  });
  return { stop: () => boss.stop({ graceful: true, timeout: 10_000 }) };
}
