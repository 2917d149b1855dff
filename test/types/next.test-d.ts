// The types of the Next.js entry points: taskQueue({ after }) takes Next's after (a callback runner), cronRoute() is a
// route handler (Request in, Response out) with close(), runDueTasks() answers its summary, startTaskRunner() may
// answer undefined (during next build).

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTasks, runDueTasks, taskQueue, type DueTasksSummary } from "../../src/index.js";
import { cronRoute, startTaskRunner, type TaskRunner } from "../../src/next/index.js";

const tasks = defineTasks({ mail: { payload: z.object({ to: z.string() }), handler: async () => {} } });
declare function after(task: () => Promise<void>): void;

describe("Next.js entry points", () => {
  it("types after, the cron route, runDueTasks and startTaskRunner", () => {
    expectTypeOf(taskQueue({ tasks, after, afterBudgetMs: 20_000 })).not.toBeNever();
    // @ts-expect-error after is a function
    taskQueue({ tasks, after: "after" });
    const GET = cronRoute({ tasks, budgetMs: 50_000 });
    expectTypeOf(GET).parameters.toEqualTypeOf<[Request]>();
    expectTypeOf(GET).returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf<ReturnType<typeof GET.close>>().toEqualTypeOf<Promise<void>>();
    // @ts-expect-error budgetMs is required
    cronRoute({ tasks });
    expectTypeOf(runDueTasks({ tasks, budgetMs: 50_000 })).toEqualTypeOf<Promise<DueTasksSummary>>();
    expectTypeOf(startTaskRunner({ tasks })).toEqualTypeOf<Promise<TaskRunner | undefined>>();
  });
});
