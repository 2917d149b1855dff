// The first read of a bounded pass (runDueTasks): in one statement, every queue row as listQueues shows it, whether a
// running task's lease has expired, and each schedule's last slot as listSchedules shows it; a missing schedule table
// says which table and which migration.

import { expect } from "vitest";
import type { WorkProbe } from "../../../src/store/work-probe.js";
import { area } from "./area.js";
import { withoutScheduleTable } from "./schedules.js";

/** The probe with its lists in a fixed order, to compare with the listing operations. */
function sorted(probe: WorkProbe): WorkProbe {
  return {
    queues: [...probe.queues].sort((a, b) => (a.queue < b.queue ? -1 : 1)),
    expiredLease: probe.expiredLease,
    schedules: [...probe.schedules].sort((a, b) => (a.schedule < b.schedule ? -1 : 1)),
  };
}

export const probeArea = area("probe", {
  probeWork: {
    "an empty database: no queue row, no expired lease, no schedule": async (bed) => {
      expect(await bed.store.probeWork()).toEqual({ queues: [], expiredLease: false, schedules: [] });
    },

    "every queue row as listQueues shows it, and each schedule's last slot as listSchedules shows it": async (bed) => {
      await bed.store.syncQueues([
        { queue: "reports", concurrency: 5, rateLimit: { starts: 10, perMs: 1000 } },
        { queue: "mail", concurrency: null, rateLimit: { starts: 3, perMs: 60_000 } },
      ]);
      await bed.store.pauseQueue("default");
      await bed.store.syncSchedules([
        { schedule: "digest#1", taskName: "digest", cron: "*/5 * * * *", timeZone: "UTC" },
        { schedule: "cleanup#1", taskName: "cleanup", cron: "0 3 * * *", timeZone: "Europe/Paris" },
      ]);
      await bed.store.advanceSchedule("cleanup#1", new Date(Date.UTC(2031, 0, 2, 3)));
      const probe = sorted(await bed.store.probeWork());
      expect(probe.queues).toEqual(await bed.store.listQueues());
      expect(probe.schedules).toEqual((await bed.store.listSchedules()).map(({ schedule, lastSlot }) => ({ schedule, lastSlot })));
      expect(probe.schedules.map((mark) => mark.schedule)).toEqual(["cleanup#1", "digest#1"]);
      expect(probe.expiredLease).toBe(false);
    },

    "an expired lease says so; pending, live-leased and finished tasks do not": async (bed) => {
      const [pending, live, done, lost] = await bed.insert([{}, {}, {}, {}]);
      await bed.claim([live!]);
      await bed.succeed([done!]);
      expect((await bed.store.probeWork()).expiredLease, `pending ${pending}, a live lease, a finished task`).toBe(false);
      await bed.expired([lost!]);
      expect((await bed.store.probeWork()).expiredLease).toBe(true);
    },

    "a missing schedule table rejects with the missing-table problem naming it and the migration": async (bed) => {
      await withoutScheduleTable(bed, async () => {
        const error = await bed.store.probeWork().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error, "the probe rejects").toBeInstanceOf(Error);
        const problem = bed.store.classify(error);
        expect(problem).toMatchObject({ kind: "missing-table", lasting: true });
        expect(problem.detail).toContain('"tasks_schedules"');
        expect(problem.detail).toContain("20261203000000_task_schedules");
      });
    },
  },
});
