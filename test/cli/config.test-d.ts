// Type tests of the runner config and the cleaner's API: what defineConfig accepts and rejects, what runOnce returns.

import { expectTypeOf } from "vitest";
import { z } from "zod";
import { createCleaner, type CleanerPass } from "../../src/cleaner/create-cleaner.js";
import { defineTasks } from "../../src/index.js";
import { defineConfig, type RunnerConfig } from "../../src/runner/config.js";

const tasks = defineTasks({ ping: { payload: z.object({ n: z.number() }), handler: ({ n }) => n + 1 } });

const config = defineConfig({ tasks, amqpPrefix: "app", worker: { concurrency: 4, queues: ["default"] }, cleaner: { retentionMs: 0 } });
expectTypeOf(config).toExtend<RunnerConfig>();
expectTypeOf(config.tasks).toEqualTypeOf(tasks);
defineConfig({ tasks, prisma: () => ({}) });

// @ts-expect-error tasks is required
defineConfig({ databaseUrl: "postgresql://localhost/app" });
// @ts-expect-error the database is set once, at the top, not per part
defineConfig({ tasks, worker: { databaseUrl: "postgresql://localhost/app" } });
// @ts-expect-error a misspelt option
defineConfig({ tasks, cleaner: { retention: 1000 } });

const cleaner = createCleaner({ tasks, databaseUrl: "postgresql://localhost/app" });
expectTypeOf(cleaner.runOnce()).resolves.toEqualTypeOf<CleanerPass>();
expectTypeOf(cleaner.isLeader).toBeBoolean();
// @ts-expect-error intervalMs is a number of milliseconds
createCleaner({ tasks, databaseUrl: "postgresql://localhost/app", intervalMs: "1s" });
