// The demo's burst: app-like transactions that write a report and enqueue its tasks, some rolled back on purpose,
// some with failing handlers, some delayed, some repeating a dedupe key.

import type { EnqueuedTask, EnqueueOptions } from "../src/index.js";

/** What the burst uses of the demo's transaction client: a report, and the enqueue taskQueue() adds. */
interface DemoTx {
  report: { create(args: { data: { id: string } }): Promise<{ id: string }> };
  task: { enqueue(name: string, payload: unknown, options?: EnqueueOptions): Promise<EnqueuedTask> };
}

/** What the burst uses of the demo's client, on either database. */
interface DemoClient {
  $transaction<R>(fn: (tx: DemoTx) => Promise<R>): Promise<R>;
}

export interface LoadResult {
  committed: string[];
  rolledBack: string[];
  transactions: number;
  rolledBackTransactions: number;
  duplicatesReturned: number;
}

class PlannedRollback extends Error {}

/** Runs `count` transactions, `concurrency` at a time. Every 7th rolls back after enqueueing. */
export async function runLoad(prisma: DemoClient, count: number, concurrency: number): Promise<LoadResult> {
  const result: LoadResult = { committed: [], rolledBack: [], transactions: 0, rolledBackTransactions: 0, duplicatesReturned: 0 };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const enqueued: EnqueuedTask[] = [];
      try {
        await prisma.$transaction(async (tx) => {
          const report = await tx.report.create({ data: { id: crypto.randomUUID() } });
          const failTimes = n % 5 === 0 ? 2 : 0;
          enqueued.push(await tx.task.enqueue("generate-report", { reportId: report.id, failTimes }, { key: `report:${report.id}` }));
          if (n % 3 === 0) enqueued.push(await tx.task.enqueue("send-email", { to: `user${n}@example.com` }));
          if (n % 10 === 0) enqueued.push(await tx.task.enqueue("reminder", { reportId: report.id }, { delayMs: 1500 }));
          if (n % 11 === 0) {
            const again = await tx.task.enqueue("generate-report", { reportId: report.id, failTimes }, { key: `report:${report.id}` });
            if (!again.created) result.duplicatesReturned++;
          }
          if (n % 7 === 3) throw new PlannedRollback("the user's payment was declined");
        });
        result.committed.push(...enqueued.map((task) => task.id));
      } catch (error) {
        if (!(error instanceof PlannedRollback)) throw error;
        result.rolledBack.push(...enqueued.map((task) => task.id));
        result.rolledBackTransactions++;
      }
      result.transactions++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}
