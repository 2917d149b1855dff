// The concurrency key a task's definition computes from its payload at enqueue: from the validated payload (defaults
// applied), stored with the row; a key function that returns anything but a non-empty string of at most 200 characters
// fails the enqueue with the task, the value and the fix.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, TaskOptionsError } from "../../src/index.js";
import { prepareTask } from "../../src/enqueue/prepare.js";

const tasks = defineTasks({
  sync: {
    payload: z.object({ accountId: z.string(), region: z.string().default("eu") }),
    concurrency: { limit: 1, key: (payload) => `${payload.region}:${payload.accountId}` },
  },
  loose: { payload: z.object({ key: z.unknown() }), concurrency: { limit: 1, key: (payload) => payload.key as string } },
  plain: { payload: z.object({}) },
});

describe("concurrency key at enqueue", () => {
  it("is computed from the validated payload, and absent for a task without a key function", () => {
    expect(prepareTask(tasks, "sync", { accountId: "a1" }, undefined, 1_000_000).concurrencyKey).toBe("eu:a1");
    expect(prepareTask(tasks, "plain", {}, undefined, 1_000_000).concurrencyKey).toBeNull();
  });

  it("refuses a key that is not a non-empty string of at most 200 characters, naming the fix", () => {
    for (const key of ["", 42, "k".repeat(201)]) {
      const attempt = () => prepareTask(tasks, "loose", { key }, undefined, 1_000_000);
      expect(attempt).toThrow(TaskOptionsError);
      expect(attempt).toThrow(/the definition's concurrency\.key\(payload\) must return a non-empty string of at most 200 characters, got /);
    }
  });
});
