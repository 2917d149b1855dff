// Prune: finished tasks (succeeded, dead, cancelled) older than the retention window are deleted in bounded batches,
// oldest first; tasks still pending or running stay whatever their age.

import { expect } from "vitest";
import { area } from "./area.js";

export const pruneArea = area("prune", {
  prune: {
    "deletes succeeded, dead and cancelled tasks older than the retention, answering their ids": async (bed) => {
      const [succeeded, dead, cancelled] = await bed.insert([{}, {}, {}]);
      await bed.succeed([succeeded!]);
      await bed.kill([dead!]);
      expect(await bed.store.cancelTask(cancelled!)).toHaveLength(1);
      const latest = Math.max(...(await Promise.all([succeeded!, dead!, cancelled!].map(async (id) => (await bed.task(id)).finishedAt!.getTime()))));
      await bed.untilPast(new Date(latest + 5));
      expect((await bed.store.prune({ retentionMs: 0, limit: 10 })).sort()).toEqual([succeeded, dead, cancelled].sort());
      for (const id of [succeeded!, dead!, cancelled!]) expect(await bed.store.findTask(id)).toBeUndefined();
    },

    "keeps pending and running tasks, whatever their age": async (bed) => {
      const now = await bed.store.now();
      const [old, running, expired] = await bed.insert([{ runAt: new Date(now.getTime() - 50_000) }, {}, {}]);
      await bed.claim([running!]);
      await bed.expired([expired!]);
      await bed.untilPast(new Date(now.getTime() + 5));
      expect(await bed.store.prune({ retentionMs: 0, limit: 10 })).toEqual([]);
      expect((await bed.task(old!)).status).toBe("pending");
      expect((await bed.task(running!)).status).toBe("running");
    },

    "the retention is measured from the finish, on the database clock: a task finished within it stays": async (bed) => {
      const [early, late] = await bed.insert([{}, {}]);
      await bed.succeed([early!]);
      const earlyAt = (await bed.task(early!)).finishedAt!.getTime();
      await bed.untilPast(new Date(earlyAt + 200));
      await bed.succeed([late!]);
      const lateAt = (await bed.task(late!)).finishedAt!.getTime();
      // Past the late finish on the database clock (SQLite's counts milliseconds), so a prune that ignored the
      // retention would take the late task too.
      await bed.untilPast(new Date(lateAt + 2));
      const retentionMs = (await bed.store.now()).getTime() - (earlyAt + lateAt) / 2;
      expect(await bed.store.prune({ retentionMs, limit: 10 })).toEqual([early]);
      expect((await bed.task(late!)).status).toBe("succeeded");
      expect(await bed.store.prune({ retentionMs: 3_600_000, limit: 10 })).toEqual([]);
    },

    "keeps a finished child while its parent has not finished; deletes it with the parent's end": async (bed) => {
      const [parent, done, lone] = await bed.insert([{}, {}, {}]);
      expect(await bed.store.linkChildren(parent!, [done!])).toBe(1);
      await bed.succeed([done!, lone!]);
      const finished = Math.max((await bed.task(done!)).finishedAt!.getTime(), (await bed.task(lone!)).finishedAt!.getTime());
      await bed.untilPast(new Date(finished + 5));
      expect(await bed.store.prune({ retentionMs: 0, limit: 10 }), "the parent is pending").toEqual([lone]);
      expect((await bed.task(done!)).status).toBe("succeeded");
      await bed.claim([parent!]);
      expect(await bed.store.prune({ retentionMs: 0, limit: 10 }), "the parent is running").toEqual([]);
      expect(await bed.store.complete("worker-a", [{ id: parent!, resultJson: "null" }])).toEqual([parent]);
      await bed.untilPast(new Date((await bed.task(parent!)).finishedAt!.getTime() + 5));
      expect((await bed.store.prune({ retentionMs: 0, limit: 10 })).sort()).toEqual([parent, done].sort());
    },

    "deletes at most `limit` per call, the longest finished first": async (bed) => {
      const ids = await bed.insert([{}, {}, {}]);
      for (const id of ids) {
        await bed.succeed([id]);
        await bed.untilPast(new Date((await bed.task(id)).finishedAt!.getTime() + 1));
      }
      expect(await bed.store.prune({ retentionMs: 0, limit: 2 })).toEqual(ids.slice(0, 2));
      expect(await bed.store.prune({ retentionMs: 0, limit: 2 })).toEqual(ids.slice(2));
      expect(await bed.store.prune({ retentionMs: 0, limit: 2 })).toEqual([]);
    },
  },
});
