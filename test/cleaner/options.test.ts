// createCleaner() options: a bad one fails at construction with TaskQueueConfigError naming the option, the bad
// value and the fix; nothing connects, so these tests need no database.

import { describe, expect, it } from "vitest";
import { MAX_INTERVAL_MS, resolveCleanerOptions } from "../../src/cleaner/cleaner-options.js";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { electionTiming } from "../../src/cleaner/election-timing.js";
import { openStore, silentLogger, TaskQueueConfigError, TaskQueueStoppedError, type CleanerOptions } from "../../src/index.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { testPrisma } from "../support/prisma.js";

const base: CleanerOptions = { tasks: cleanerTasks, databaseUrl: "postgresql://postgres@127.0.0.1:5432/none", logger: silentLogger };
const INT32_MAX = 2 ** 31 - 1;

function configError(options: Record<string, unknown>): TaskQueueConfigError {
  try {
    createCleaner({ ...base, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(TaskQueueConfigError);
    expect((error as TaskQueueConfigError).code).toBe("TASK_QUEUE_CONFIG_INVALID");
    return error as TaskQueueConfigError;
  }
  throw new Error("createCleaner did not throw");
}

describe("intervalMs", () => {
  it("refuses an interval whose derived timers would overflow (setTimeout turns them into 1 ms)", () => {
    expect(configError({ intervalMs: 3e9 }).message).toBe(
      'Invalid option "intervalMs": must be an integer from 1 to 214748364 ' +
        "(the leader lock's timers and idle_session_timeout, up to 10 × intervalMs, must fit in 2147483647 ms), got 3000000000.",
    );
    expect(configError({ intervalMs: INT32_MAX }).message).toContain("got 2147483647.");
    expect(configError({ intervalMs: MAX_INTERVAL_MS + 1 }).message).toContain("got 214748365.");
    expect(configError({ intervalMs: 0 }).message).toContain('Invalid option "intervalMs": must be an integer from 1 to 214748364');
    expect(resolveCleanerOptions({ ...base, intervalMs: MAX_INTERVAL_MS }).intervalMs).toBe(214_748_364);
  });

  it("caps at the largest interval whose leader-election timings all fit in a timer and in idle_session_timeout", () => {
    const fits = (intervalMs: number) => Object.values(electionTiming(intervalMs)).every((ms) => ms <= INT32_MAX);
    expect(fits(MAX_INTERVAL_MS)).toBe(true);
    expect(fits(MAX_INTERVAL_MS + 1)).toBe(false);
  });

  it("leaves the ms options that only reach SQL (as double precision intervals) without the timer cap", () => {
    const resolved = resolveCleanerOptions({ ...base, retentionMs: 90 * 24 * 3600 * 1000, republishAfterMs: 3e9, unpublishedGraceMs: 3e9 });
    expect(resolved.retentionMs).toBe(7_776_000_000);
    expect(configError({ retentionMs: -1 }).message).toBe('Invalid option "retentionMs": must be an integer of at least 0, got -1.');
  });
});

describe("amqpUrl", () => {
  it("must be amqp:// or amqps://, as for the worker", () => {
    expect(configError({ amqpUrl: "localhost:5672" }).message).toBe(
      'Invalid option "amqpUrl": must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got "localhost:5672".',
    );
    expect(resolveCleanerOptions({ ...base, amqpUrl: "" }).amqpUrl).toBe(""); // an unset environment variable: no broker
    expect(configError({ amqpUrl: 5672 }).message).toContain("got 5672.");
    expect(configError({ amqpUrl: "postgresql://postgres@127.0.0.1:5432/postgres" }).message).toContain('Invalid option "amqpUrl"');
    expect(resolveCleanerOptions({ ...base, amqpUrl: "amqps://guest:guest@127.0.0.1:5671" }).amqpUrl).toBe("amqps://guest:guest@127.0.0.1:5671");
    expect(resolveCleanerOptions({ ...base, amqpUrl: undefined }).amqpUrl).toBeUndefined();
  });

  it("does not repeat the password of a wrong URL in the message", () => {
    const message = configError({ amqpUrl: "http://guest:s3cret@rabbit:5672" }).message;
    expect(message).toContain('got "http://guest:***@rabbit:5672/".');
    expect(message).not.toContain("s3cret");
  });
});

describe("store", () => {
  it("refuses a store bound to a Prisma client: the leader lock needs a pool of its own", async () => {
    const store = openStore(base.databaseUrl!);
    const prisma = testPrisma(base.databaseUrl!);
    try {
      expect(configError({ databaseUrl: undefined, store: store.through(prisma) }).message).toBe(
        'Invalid option "store": the cleaner\'s leader lock needs a store with a pool of its own, and this one is bound to a Prisma client. ' +
          "Pass openStore(databaseUrl) as the cleaner's store, or leave store out and give databaseUrl.",
      );
    } finally {
      await prisma.$disconnect();
      await store.close();
    }
  });
});

describe("after stop()", () => {
  it("runOnce() rejects with TASK_STOPPED: a stopped cleaner does not start again", async () => {
    const cleaner = createCleaner(base);
    await cleaner.stop();
    const failure = cleaner.runOnce();
    await expect(failure).rejects.toBeInstanceOf(TaskQueueStoppedError);
    await expect(failure).rejects.toMatchObject({
      code: "TASK_STOPPED",
      message: "The cleaner was stopped and does not start again; create a new one with createCleaner() to start again.",
    });
  });
});
