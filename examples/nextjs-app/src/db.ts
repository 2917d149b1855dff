// The app's Prisma client: the generated client on the pg driver adapter, extended with the task queue so that
// `tx.task.enqueue()` writes the task in the caller's transaction and wakes a worker after the commit.

import { PrismaPg } from "@prisma/adapter-pg";
import { taskQueue } from "prisma-task-queue";
import { PrismaClient } from "./generated/prisma/client";
import { amqpPrefix, amqpUrl, databaseUrl } from "./settings";
import { tasks } from "./tasks";

function createPrisma() {
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl() }) });
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
