// The app's Prisma client: the generated client on the pg driver adapter, extended with the task queue so that
// `tx.task.enqueue()` writes the task in the caller's transaction and wakes a worker after the commit. In serverless
// mode there is no worker to wake: the client hands Next.js's `after()` the tasks each commit enqueued, and they run in
// the same invocation once the response is sent (what they leave, the cron route runs).

import { PrismaPg } from "@prisma/adapter-pg";
import { after } from "next/server";
import { taskQueue } from "prisma-task-queue";
import { PrismaClient } from "./generated/prisma/client";
import { amqpPrefix, amqpUrl, databaseUrl, taskMode } from "./settings";
import { tasks } from "./tasks";

/**
 * How long the runs after a response may take. A platform sets it from the function's time limit minus the response;
 * here it is just above generate-report's timeoutMs (5 s), so a run cut short is recovered after 6 + 30 s.
 */
export const AFTER_BUDGET_MS = 6_000;

function createPrisma() {
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl() }) });
  if (taskMode() === "serverless") return client.$extends(taskQueue({ tasks, after, afterBudgetMs: AFTER_BUDGET_MS }));
  return client.$extends(taskQueue({ tasks, amqpUrl: amqpUrl(), amqpPrefix: amqpPrefix() }));
}

export type AppPrisma = ReturnType<typeof createPrisma>;

// One client per server process. It is made on first use, not at import, so that `next build` opens no connection,
// and kept on globalThis so that `next dev` reloading this module does not open another pool and broker connection.
const holder = globalThis as typeof globalThis & { exampleTaskQueuePrisma?: AppPrisma };

export function prisma(): AppPrisma {
  holder.exampleTaskQueuePrisma ??= createPrisma();
  return holder.exampleTaskQueuePrisma;
}
