// defineTasks(): a definition that cannot work fails at once, with TaskDefinitionError naming the task, the field, the
// bad value and the bounds, instead of passing and breaking every run (a timer that fires at once) or every enqueue.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, TaskDefinitionError, type TaskDefinition } from "../../src/index.js";

function definitionError(definition: Partial<TaskDefinition>): TaskDefinitionError {
  try {
    defineTasks({ t: { payload: z.object({}), ...definition } } as never);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskDefinitionError);
    expect((error as TaskDefinitionError).code).toBe("TASK_DEFINITION_INVALID");
    return error as TaskDefinitionError;
  }
  throw new Error("defineTasks did not throw");
}

function accepts(definition: Partial<TaskDefinition>): void {
  expect(() => defineTasks({ t: { payload: z.object({}), ...definition } } as never)).not.toThrow();
}

describe("timeoutMs", () => {
  it("refuses more than a Node.js timer can wait (setTimeout turns it into 1 ms)", () => {
    expect(definitionError({ timeoutMs: 3e9 }).message).toBe(
      'Invalid definition of task "t": timeoutMs must be an integer from 1 to 2147483647 ' +
        "(a Node.js timer waits at most that long; a longer one fires at once), got 3000000000.",
    );
    expect(definitionError({ timeoutMs: 2 ** 31 }).message).toContain("got 2147483648.");
    expect(definitionError({ timeoutMs: 0 }).message).toContain("timeoutMs must be an integer from 1 to 2147483647");
    expect(definitionError({ timeoutMs: 1.5 }).message).toContain("got 1.5.");
    accepts({ timeoutMs: 2 ** 31 - 1 });
    accepts({ timeoutMs: 1 });
  });

  it("leaves room for the 5 s the worker adds to a transactional task's Prisma transaction timeout", () => {
    expect(definitionError({ timeoutMs: 2 ** 31 - 1, transactional: true }).message).toBe(
      'Invalid definition of task "t": timeoutMs must be an integer from 1 to 2147478647 ' +
        "(the Prisma transaction of a transactional task gets timeoutMs + 5000 ms, and a Node.js timer waits at most 2147483647 ms), " +
        "got 2147483647.",
    );
    accepts({ timeoutMs: 2 ** 31 - 1 - 5000, transactional: true });
  });
});

describe("maxAttempts and priority", () => {
  it("refuse what enqueue would refuse (the columns are INTEGER), so a definition cannot break every enqueue", () => {
    expect(definitionError({ maxAttempts: 3e9 }).message).toBe(
      'Invalid definition of task "t": maxAttempts must be an integer from 1 to 2147483647 (enqueue writes it to an INTEGER column), got 3000000000.',
    );
    expect(definitionError({ maxAttempts: 0 }).message).toContain("maxAttempts must be an integer from 1 to 2147483647");
    expect(definitionError({ priority: 2 ** 31 }).message).toBe(
      'Invalid definition of task "t": priority must be an integer from -2147483647 to 2147483647 (enqueue writes it to an INTEGER column), got 2147483648.',
    );
    expect(definitionError({ priority: -(2 ** 31) }).message).toContain("got -2147483648.");
    expect(definitionError({ priority: 0.5 }).message).toContain("priority must be an integer");
    accepts({ maxAttempts: 2 ** 31 - 1, priority: 2 ** 31 - 1 });
    accepts({ maxAttempts: 1, priority: -(2 ** 31 - 1) });
  });
});

describe("backoff", () => {
  it("is checked by defineTasks too, with createWorker's rules, whether or not the task has a handler", () => {
    expect(definitionError({ backoff: { factor: 0.5 } }).message).toBe('Invalid definition of task "t": backoff.factor must be a number ≥ 1, got 0.5.');
    expect(definitionError({ backoff: { jitter: 2 }, handler: async () => {} }).message).toBe(
      'Invalid definition of task "t": backoff.jitter must be a fraction from 0 to 1, got 2.',
    );
    expect(definitionError({ backoff: { baseMs: -1 } }).message).toContain("backoff.baseMs must be a number of milliseconds ≥ 0, got -1");
    expect(definitionError({ backoff: "fast" as never }).message).toContain('backoff must be an object such as { baseMs: 1000 }, got "fast"');
    accepts({ backoff: { baseMs: 0, factor: 1, maxMs: 10 ** 12, jitter: 1 } });
  });
});

describe("defineTasks<Client>()", () => {
  it("returns a function that checks and freezes the definitions the same way", () => {
    const define = defineTasks<{ $transaction(fn: (tx: { ping(): void }) => Promise<unknown>): Promise<unknown> }>();
    expect(define).toBeTypeOf("function");
    const definitions = { t: { payload: z.object({}), transactional: true as const, handler: async () => {} } };
    const tasks = define(definitions);
    expect(tasks).toBe(definitions);
    expect(Object.isFrozen(tasks)).toBe(true);
    expect(() => define({ t: { payload: z.object({}), timeoutMs: 0 } })).toThrow(
      new TaskDefinitionError("t", "timeoutMs must be an integer from 1 to 2147483647 (a Node.js timer waits at most that long; a longer one fires at once), got 0."),
    );
  });

  it("still refuses a missing registry passed explicitly, naming the fix", () => {
    expect(() => defineTasks(undefined as never)).toThrow("defineTasks() takes an object that maps task names to definitions.");
  });
});

describe("concurrency", () => {
  it("takes a limit from 1 to 1,000,000 and an optional key function, and names the fix otherwise", () => {
    accepts({ concurrency: { limit: 1, key: () => "k" } });
    accepts({ concurrency: { limit: 1_000_000 } });
    expect(definitionError({ concurrency: { limit: 0 } }).message).toBe(
      'Invalid definition of task "t": concurrency.limit must be an integer from 1 to 1000000 (the most tasks of one group running at once), got 0.',
    );
    expect(definitionError({ concurrency: {} as never }).message).toBe(
      'Invalid definition of task "t": concurrency.limit is required: the most tasks of one group running at once, e.g. { limit: 1 }.',
    );
    expect(definitionError({ concurrency: { limit: 2, key: "accountId" } as never }).message).toBe(
      'Invalid definition of task "t": concurrency.key must be a function (payload) => string, got "accountId".',
    );
    expect(definitionError({ concurrency: 3 as never }).message).toContain(
      "concurrency must be an object such as { limit: 1, key: (payload) => payload.accountId }, got 3.",
    );
    expect(definitionError({ deleteOnSuccess: "yes" as never }).message).toBe('Invalid definition of task "t": deleteOnSuccess must be true or false, got "yes".');
  });
});
