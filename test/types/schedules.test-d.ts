// Type tests: a schedule's payload is typed by its task's schema input (defaults optional), and its options by name.
// Checked by tsc (npm run typecheck) and by vitest's typecheck mode.

import { describe, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";

describe("schedule types", () => {
  it("types the payload by the task's schema", () => {
    defineTasks({
      report: {
        payload: z.object({ accountId: z.string(), full: z.boolean().default(false) }),
        schedules: [
          { key: "nightly", cron: "0 3 * * *", timeZone: "Europe/Paris", payload: { accountId: "a" } },
          { key: "weekly", cron: "0 4 * * 0", payload: { accountId: "a", full: true }, missed: { withinMs: 86_400_000, max: 1 } },
        ],
      },
    });
    defineTasks<PrismaClient>()({
      digest: { payload: z.object({}), schedules: [{ cron: "*/10 * * * * *", missed: "latest" }] },
    });
  });

  it("rejects a payload of the wrong shape, an unknown option and an unknown policy", () => {
    defineTasks({
      report: {
        payload: z.object({ accountId: z.string() }),
        schedules: [
          // @ts-expect-error accountId is a string
          { cron: "0 3 * * *", payload: { accountId: 1 } },
          // @ts-expect-error "every" is not an option of a schedule
          { every: 1000, cron: "0 3 * * *", payload: { accountId: "a" } },
          // @ts-expect-error "all" is not a missed-slot policy
          { cron: "0 3 * * *", payload: { accountId: "a" }, missed: "all" },
        ],
      },
    });
  });
});
