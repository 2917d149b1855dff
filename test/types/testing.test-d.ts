// Type tests of prisma-task-queue/testing: assertions take only the registry's task names once it is given (as the
// type argument of recordEnqueues, or as inlineQueue's tasks), and drain() resolves the runs.
// Checked by tsc (npm run typecheck) and by vitest's typecheck mode.

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTasks, taskQueue } from "../../src/index.js";
import { inlineQueue, recordEnqueues, type CommittedEnqueue, type InlineQueue, type InlineRun } from "../../src/testing/index.js";
import { testPrisma } from "../support/prisma.js";

const tasks = defineTasks({
  "send-report": { payload: z.object({ reportId: z.string() }), handler: async () => {} },
  audit: { payload: z.object({ event: z.string() }) },
});

declare const url: string;
const prisma = testPrisma(url).$extends(taskQueue({ tasks }));

describe("testing helper types", () => {
  it("checks task names against the registry given as the type argument", () => {
    const recorder = recordEnqueues<typeof tasks>(prisma);
    expectTypeOf(recorder.assertEnqueued("send-report", { payload: { reportId: "r1" }, queue: "default" })).toEqualTypeOf<CommittedEnqueue>();
    recorder.refuteEnqueued("audit");
    // @ts-expect-error: not a task of the registry
    recorder.refuteEnqueued("send-reprot");
    // @ts-expect-error: not a field of a match
    recorder.assertEnqueued("audit", { quue: "default" });
    expectTypeOf(recorder.enqueued()).toEqualTypeOf<CommittedEnqueue[]>();
  });

  it("takes any name without a registry type", () => {
    recordEnqueues(prisma).assertEnqueued("anything");
  });

  it("infers the registry from inlineQueue's tasks and resolves drain() to the runs", async () => {
    const queue = await inlineQueue(prisma, { tasks });
    expectTypeOf(queue).toEqualTypeOf<InlineQueue<typeof tasks>>();
    expectTypeOf(queue.drain({ scheduled: true })).resolves.toEqualTypeOf<InlineRun[]>();
    // @ts-expect-error: not a task of the registry
    queue.assertEnqueued("nope");
  });
});
