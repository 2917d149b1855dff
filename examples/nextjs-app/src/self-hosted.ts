// The self-hosted mode: the worker and the cleaner run inside the `next start` process, started once by
// instrumentation.ts's register() (Node.js runtime only) and drained on SIGTERM. Nothing in the other modes.

import { startTaskRunner } from "prisma-task-queue/next";
import { prisma } from "./db";
import { amqpPrefix, amqpUrl, databaseUrl, taskMode } from "./settings";
import { tasks } from "./tasks";

export async function startSelfHostedTasks(): Promise<void> {
  if (taskMode() !== "self-hosted") return;
  await startTaskRunner({
    tasks,
    databaseUrl: databaseUrl(),
    amqpUrl: amqpUrl(),
    amqpPrefix: amqpPrefix(),
    // generate-report is transactional, report-digest reads through ctx.prisma.
    prisma: prisma(),
    // A sweep every 250 ms (default 1000) makes the half-second backoff visible on the page.
    cleaner: { intervalMs: 250 },
  });
}
