// A sweep that runs out of time fires the oldest due slots of all schedules first: a schedule declared after a busier
// one is not left behind until its slots are too old to fire (they would then be skipped as missed). On every dialect.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, silentLogger, type Store } from "../../src/index.js";
import { resolveCleanerOptions } from "../../src/cleaner/cleaner-options.js";
import { ScheduleFiring } from "../../src/cleaner/schedule-step.js";
import type { SweepContext } from "../../src/cleaner/sweep.js";
import { registrySchedules } from "../../src/schedules/task-schedule.js";
import { openTransport } from "../../src/wakeups/open-transport.js";
import { WakeupSender } from "../../src/wakeups/wakeup-sender.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { waitUntil } from "../support/wait.js";

const tasks = defineTasks({
  tick: {
    payload: z.object({}),
    schedules: [
      { key: "every-second", cron: "* * * * * *" },
      { key: "every-2-seconds", cron: "*/2 * * * * *" },
    ],
  },
});

for (const dialect of STORE_DIALECTS) {
  describe(`firing schedules on ${dialect.name}`, () => {
    let database: { url: string; drop(): Promise<void> };
    let store: Store;
    let firing: ScheduleFiring;
    let context: Omit<SweepContext, "more">;

    beforeEach(async () => {
      database = await dialect.createDatabase();
      store = openStore(database.url, { table: "tasks" });
      const transport = openTransport({ amqpPrefix: undefined, logger: silentLogger, store, inProcess: store.wakeupIdentity });
      const sender = new WakeupSender({ transport, logger: silentLogger, markConfirmed: (ids) => store.markPublished(ids) });
      const options = resolveCleanerOptions({ tasks, store, logger: silentLogger });
      firing = new ScheduleFiring(registrySchedules(tasks), tasks);
      context = { options, store, transport, sender, logger: silentLogger, schedules: firing, staleCheck: { at: undefined } };
      return async () => {
        await sender.close();
        await transport.close();
      };
    });

    afterEach(async () => {
      await store?.close();
      await database?.drop();
    });

    it("fires the oldest slots of every schedule first when the sweep can fire only some", async () => {
      // A first sweep with no time left only declares the schedules: their last slot is the time they were declared.
      await firing.fire({ ...context, more: () => false });
      const lastSlots = async () => new Map((await store.listSchedules()).map((state) => [state.schedule.replace("tick#", ""), state.lastSlot.getTime()]));
      const declared = await lastSlots();
      const second = declared.get("every-second")!;
      // Four seconds more of the database's clock: four slots of one schedule due, two of the other.
      await waitUntil(async () => (await store.now()).getTime() >= second + 4000, "the database clock to pass four more seconds", 15_000);
      let left = 3;
      expect(await firing.fire({ ...context, more: () => left-- > 0 })).toBe(3);
      // The three oldest due slots: two of the busier schedule and the first of the other, not three of the busier.
      const fired = await lastSlots();
      expect(fired.get("every-second")).toBe(Math.floor(second / 1000) * 1000 + 2000);
      expect(fired.get("every-2-seconds")).toBeGreaterThan(declared.get("every-2-seconds")!);
    });
  });
}
