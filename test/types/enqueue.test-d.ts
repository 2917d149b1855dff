// Type tests: enqueue accepts only registered task names and each task's payload input type.
// Checked by tsc (npm run typecheck) and by vitest's typecheck mode.

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTasks, taskQueue, type EnqueuedTask } from "../../src/index.js";
import { testPrisma } from "../support/prisma.js";

const tasks = defineTasks({
  "send-report": {
    payload: z.object({ reportId: z.string() }),
    handler: async (payload) => {
      expectTypeOf(payload).toEqualTypeOf<{ reportId: string }>();
      return { sent: true };
    },
  },
  "resize-image": {
    payload: z.object({ url: z.string(), width: z.number().default(100) }),
    queue: "images",
  },
});

declare const url: string;
const prisma = testPrisma(url).$extends(taskQueue({ tasks }));
const renamed = testPrisma(url).$extends(taskQueue({ tasks, model: "Report" }));

describe("enqueue types", () => {
  it("accepts a registered name with its payload and returns an EnqueuedTask of that name", () => {
    expectTypeOf(prisma.task.enqueue("send-report", { reportId: "r1" })).resolves.toEqualTypeOf<EnqueuedTask<"send-report">>();
    // a schema default makes the field optional in the input type
    void prisma.task.enqueue("resize-image", { url: "u" });
    void prisma.task.enqueue("resize-image", { url: "u", width: 5 }, { delayMs: 10, priority: 1, key: "k", maxAttempts: 2, queue: "q" });
  });

  it("rejects an unknown task name", () => {
    // @ts-expect-error "send-reprot" is not a registered task
    void prisma.task.enqueue("send-reprot", { reportId: "r1" });
  });

  it("rejects a payload of the wrong shape", () => {
    // @ts-expect-error reportId must be a string
    void prisma.task.enqueue("send-report", { reportId: 1 });
    // @ts-expect-error reportId is required
    void prisma.task.enqueue("send-report", {});
    // @ts-expect-error the payload of another task
    void prisma.task.enqueue("send-report", { url: "u" });
  });

  it("rejects unknown options", () => {
    // @ts-expect-error delay is not an option (delayMs is)
    void prisma.task.enqueue("send-report", { reportId: "r1" }, { delay: 5 });
  });

  it("is available on the transaction client", async () => {
    await prisma.$transaction(async (tx) => {
      expectTypeOf(tx.task.enqueue).toBeFunction();
      // @ts-expect-error unknown name inside a transaction too
      void tx.task.enqueue("nope", {});
    });
  });

  it("checks every item of enqueueMany against its own name", () => {
    void prisma.task.enqueueMany([
      { name: "send-report", payload: { reportId: "a" } },
      { name: "resize-image", payload: { url: "u" }, options: { delayMs: 5 } },
    ]);
    // @ts-expect-error resize-image's payload under send-report's name
    void prisma.task.enqueueMany([{ name: "send-report", payload: { url: "u" } }]);
  });

  it("puts the methods on the model named by the model option", () => {
    expectTypeOf(renamed.report.enqueue).toBeFunction();
    // the default model keeps only Prisma's own methods then
    expectTypeOf(renamed.task).not.toHaveProperty("enqueue");
  });

  it("exposes $taskQueue controls", () => {
    expectTypeOf<typeof prisma.$taskQueue.flush>().returns.resolves.toBeVoid();
    expectTypeOf<typeof prisma.$taskQueue.close>().returns.resolves.toBeVoid();
    expectTypeOf(prisma.$taskQueue.broker.state).toEqualTypeOf<"connected" | "connecting" | "unreachable" | "refused" | "none">();
    expectTypeOf(prisma.$taskQueue.broker.since).toEqualTypeOf<Date | undefined>();
  });
});
