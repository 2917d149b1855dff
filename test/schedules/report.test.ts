// What `task-runner status` and the dashboard show of the schedules, on every dialect: each declared schedule with
// its last slot from the database and its next one; a schedule the code no longer declares, marked as not firing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { renderSchedules, scheduleReport } from "../../src/cli/schedule-report.js";
import { scheduleRows } from "../../src/dashboard/schedule-rows.js";
import { createCleaner, defineTasks, openStore, silentLogger, type Store } from "../../src/index.js";
import { CronSlots } from "../../src/schedules/cron-slots.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";

const nightly = defineTasks({ report: { payload: z.object({}), schedules: [{ key: "nightly", cron: "0 3 * * *", timeZone: "Europe/Paris" }] } });
const none = defineTasks({ report: { payload: z.object({}) } });
const nextParisThree = (after: Date) => new CronSlots("0 3 * * *", "Europe/Paris").next(after)!.toISOString();

for (const dialect of STORE_DIALECTS) {
  describe(`the schedules report on ${dialect.name}`, () => {
    let database: { url: string; drop(): Promise<void> };
    let store: Store;

    beforeEach(async () => {
      database = await dialect.createDatabase();
      store = openStore(database.url, { table: "tasks" });
    });

    afterEach(async () => {
      await store?.close();
      await database?.drop();
    });

    it("lists a declared schedule before and after a cleaner led, and one the code dropped", async () => {
      const before = await scheduleReport(nightly, store);
      expect(before).toEqual([
        { schedule: "report#nightly", task: "report", cron: "0 3 * * *", timeZone: "Europe/Paris", lastSlot: null, nextSlot: expect.any(String), declared: true },
      ]);
      expect(renderSchedules(before).join("\n")).toMatch(/report#nightly +0 3 \* \* \* +Europe\/Paris +none yet +\d{4}-/);

      const cleaner = createCleaner({ tasks: nightly, store, logger: silentLogger });
      expect(await cleaner.runOnce()).toMatchObject({ leader: true, fired: 0, errors: [] });
      await cleaner.stop();
      const now = await store.now();
      const [after] = await scheduleReport(nightly, store);
      expect(Date.parse(after!.lastSlot!)).toBeLessThanOrEqual(now.getTime());
      expect(after!.nextSlot).toBe(nextParisThree(now));

      const [dashboardRow] = await scheduleRows(store, now);
      expect(dashboardRow).toMatchObject({ schedule: "report#nightly", cron: "0 3 * * *", timeZone: "Europe/Paris" });
      expect(dashboardRow!.nextSlot?.toISOString()).toBe(nextParisThree(now));

      const withNewSchedule = defineTasks({ report: { payload: z.object({}), schedules: [{ key: "hourly", cron: "0 * * * *" }] } });
      const dropped = await scheduleReport(withNewSchedule, store);
      expect(dropped.map(({ schedule, declared, nextSlot }) => ({ schedule, declared, next: nextSlot !== null }))).toEqual([
        { schedule: "report#hourly", declared: true, next: true },
        { schedule: "report#nightly", declared: false, next: false },
      ]);
      expect(renderSchedules(dropped).join("\n")).toContain("not declared in the code: does not fire");
    });

    it("is empty when no schedule is declared", async () => {
      expect(await scheduleReport(none, store)).toEqual([]);
      expect(renderSchedules([])).toEqual([]);
    });
  });
}
