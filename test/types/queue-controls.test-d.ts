// Type tests: a task's concurrency key is typed by its payload (the schema's output), its limit is a number, and the
// worker's queueLimits take a concurrency and a rate of starts per queue. Checked by tsc and by vitest's typecheck.

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createWorker, defineConfig, defineTasks, type QueueLimitOptions, type TaskConcurrency } from "../../src/index.js";

describe("queue control types", () => {
  it("types the concurrency key by the payload's output", () => {
    defineTasks({
      sync: {
        payload: z.object({ accountId: z.string(), full: z.boolean().default(false) }),
        concurrency: {
          limit: 1,
          key: (payload) => {
            expectTypeOf(payload).toEqualTypeOf<{ accountId: string; full: boolean }>();
            return payload.accountId;
          },
        },
      },
      plain: { payload: z.object({}), concurrency: { limit: 3 } },
    });
    expectTypeOf<TaskConcurrency<{ id: string }>["key"]>().toEqualTypeOf<((payload: { id: string }) => string) | undefined>();
  });

  it("rejects a key of another field, a key that is not a string, and a concurrency without a limit", () => {
    defineTasks({
      sync: {
        payload: z.object({ accountId: z.string() }),
        // @ts-expect-error the payload has no tenant
        concurrency: { limit: 1, key: (payload): string => String(payload.tenant) },
      },
      count: {
        payload: z.object({ n: z.number() }),
        // @ts-expect-error a key is a string
        concurrency: { limit: 1, key: (payload) => payload.n },
      },
      // @ts-expect-error limit is required
      bare: { payload: z.object({}), concurrency: { key: () => "k" } },
    });
  });

  it("takes queueLimits on the worker and in the config", () => {
    const tasks = defineTasks({ run: { payload: z.object({}), queue: "reports", handler: () => {} } });
    const limits: Record<string, QueueLimitOptions> = { reports: { concurrency: 5, rateLimit: { starts: 100, perMs: 60_000 } } };
    createWorker({ tasks, databaseUrl: "postgresql://localhost/app", queueLimits: limits });
    defineConfig({ tasks, worker: { queueLimits: { reports: { rateLimit: { starts: 10, perMs: 1000 } } } } });
    // @ts-expect-error a rate limit needs perMs
    createWorker({ tasks, databaseUrl: "postgresql://localhost/app", queueLimits: { reports: { rateLimit: { starts: 10 } } } });
    // @ts-expect-error concurrency is a number
    createWorker({ tasks, databaseUrl: "postgresql://localhost/app", queueLimits: { reports: { concurrency: "5" } } });
  });
});
