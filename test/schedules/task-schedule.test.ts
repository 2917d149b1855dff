// Schedules on a task definition: defineTasks checks each one (expression, time zone, payload against the task's
// schema, keys, missed-slot policy) and fails at once with TaskDefinitionError naming the field and the fix.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, TaskDefinitionError } from "../../src/index.js";
import { registrySchedules } from "../../src/schedules/task-schedule.js";

const payload = z.object({ accountId: z.string() });

function refused(schedules: unknown): string {
  try {
    defineTasks({ report: { payload, schedules } } as never);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskDefinitionError);
    return (error as Error).message;
  }
  throw new Error("defineTasks did not throw");
}

describe("schedules on a task", () => {
  it("are checked and resolved with their defaults", () => {
    const tasks = defineTasks({
      report: { payload, schedules: [{ cron: "0 3 * * *", payload: { accountId: "a" } }] },
      digest: {
        payload: z.object({}),
        schedules: [
          { key: "morning", cron: "0 8 * * 1-5", timeZone: "Europe/Paris", missed: "latest" },
          { key: "evening", cron: "0 0 18 * * *", timeZone: "America/New_York", missed: { withinMs: 3_600_000, max: 3 } },
        ],
      },
    });
    const resolved = registrySchedules(tasks).map(({ slots, ...rest }) => ({ ...rest, expression: slots.expression }));
    expect(resolved).toEqual([
      { id: "report#default", taskName: "report", cron: "0 3 * * *", timeZone: "UTC", payload: { accountId: "a" }, missed: "skip", expression: "0 3 * * *" },
      { id: "digest#morning", taskName: "digest", cron: "0 8 * * 1-5", timeZone: "Europe/Paris", payload: {}, missed: "latest", expression: "0 8 * * 1-5" },
      {
        id: "digest#evening",
        taskName: "digest",
        cron: "0 0 18 * * *",
        timeZone: "America/New_York",
        payload: {},
        missed: { withinMs: 3_600_000, max: 3 },
        expression: "0 0 18 * * *",
      },
    ]);
  });

  it("refuse a bad expression, naming croner's reason", () => {
    expect(refused([{ cron: "0 25 * * *", payload: { accountId: "a" } }])).toMatch(
      /^Invalid definition of task "report": schedules\[0\]\.cron "0 25 \* \* \*" is not a cron expression of 5 fields .*hour/,
    );
    expect(refused([{ cron: 5 }])).toContain('schedules[0].cron must be a cron expression such as "0 3 * * *", got 5.');
  });

  it("refuse a time zone that does not exist", () => {
    expect(refused([{ cron: "0 3 * * *", timeZone: "Europe/Parris", payload: { accountId: "a" } }])).toContain(
      'schedules[0].timeZone must be an IANA time zone such as "Europe/Paris" or "UTC", got "Europe/Parris".',
    );
  });

  it("refuse a payload the task's schema rejects, and a missing one when the schema needs fields", () => {
    expect(refused([{ cron: "0 3 * * *", payload: { accountId: 7 } }])).toMatch(/schedules\[0\]\.payload does not match the task's payload schema \(accountId: /);
    expect(refused([{ cron: "0 3 * * *" }])).toMatch(/schedules\[0\]\.payload does not match the task's payload schema \(accountId: /);
  });

  it("need a key of its own for each schedule of a task", () => {
    const two = [
      { cron: "0 3 * * *", payload: { accountId: "a" } },
      { cron: "0 4 * * *", payload: { accountId: "a" } },
    ];
    expect(refused(two)).toContain("schedules[1] has no key, and the task has 2 schedules: give each a key of its own");
    expect(refused(two.map((schedule) => ({ ...schedule, key: "same" })))).toContain('schedules[1].key "same" is used by another schedule of this task');
    expect(refused([{ key: "a b", cron: "0 3 * * *", payload: { accountId: "a" } }])).toContain("schedules[0].key must be 1 to 100 letters");
  });

  it("refuse a missed-slot policy that is not one of the three", () => {
    expect(refused([{ cron: "0 3 * * *", payload: { accountId: "a" }, missed: "all" }])).toContain(
      'schedules[0].missed must be "skip", "latest" or { withinMs: <ms, an integer above 0>, max?: <1 to 1000> }, got "all".',
    );
    expect(refused([{ cron: "0 3 * * *", payload: { accountId: "a" }, missed: { withinMs: 0 } }])).toContain("schedules[0].missed must be");
    expect(refused({ cron: "0 3 * * *" })).toContain("schedules must be an array");
  });
});
