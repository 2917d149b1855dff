// Task registry and per-file setup shared by the enqueue tests.

import { z } from "zod";
import { defineTasks, jsonLogger, taskQueue, silentLogger, type WakeupsChoice } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { inject } from "vitest";

export const tasks = defineTasks({
  "send-report": {
    payload: z.object({ reportId: z.string() }),
    handler: async () => {},
  },
  "resize-image": {
    payload: z.object({ url: z.string().url(), width: z.number().int().positive() }),
    queue: "images",
    maxAttempts: 3,
  },
});

export type Extended = ReturnType<typeof extend>;

export function extend(
  databaseUrl: string,
  prefix: string,
  amqpUrl: string = inject("amqpUrl"),
  onPublishError?: (ids: string[], error: Error) => void,
  wakeups?: WakeupsChoice,
) {
  const logger = process.env.PTQ_DEBUG ? jsonLogger("debug") : silentLogger;
  return testPrisma(databaseUrl).$extends(taskQueue({ tasks, amqpUrl, amqpPrefix: prefix, logger, onPublishError, wakeups }));
}

export async function setupDatabase(): Promise<TestDatabase> {
  return createTestDatabase();
}
