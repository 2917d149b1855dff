// The scaling signal's tallies and reads: the successes a worker counted (addSuccessTallies) and the tasks enqueued per
// queue within the rate window, the run time of the timed successes, right when rows are deleted on success (their
// arrivals tallied by the deletion itself) or pruned, bounded by when tallying began; a missing tally table.

import { expect } from "vitest";
import { StoreProblemError } from "../../../src/store/store-problem.js";
import { TALLY_SLOT_SECONDS, type QueueActivity } from "../../../src/store/tallies.js";
import { area } from "./area.js";
import type { StoreBed } from "./bed.js";

const WINDOWS = { rateSeconds: 60, processingSeconds: 300 };

/** The counts of queueActivity by queue, without the spans. */
async function counts(bed: StoreBed): Promise<Record<string, Omit<QueueActivity, "queue" | "rateSeconds" | "processingSeconds">>> {
  const rows = await bed.store.queueActivity(WINDOWS);
  return Object.fromEntries(rows.map(({ queue, arrived, succeeded, timed, runMs }) => [queue, { arrived, succeeded, timed, runMs }]));
}

/** The tally table renamed away for the length of `fn`, on the test's own connection. */
async function withoutTallyTable(bed: StoreBed, fn: () => Promise<void>): Promise<void> {
  await bed.raw.exec("ALTER TABLE tasks_tallies RENAME TO tasks_tallies_away");
  try {
    await fn();
  } finally {
    await bed.raw.exec("ALTER TABLE tasks_tallies_away RENAME TO tasks_tallies");
  }
}

export const activityArea = area("activity", {
  queueActivity: {
    "counts per queue the tasks enqueued and succeeded, and the run time of the timed successes": async (bed) => {
      const [a, b, c, d, other] = await bed.insert([{}, {}, {}, {}, { queue: "other" }]);
      await bed.claim([a!, b!, c!, d!]);
      expect(
        await bed.store.complete("worker-a", [
          { id: a!, resultJson: "null" },
          { id: b!, resultJson: '{"ok":1}' },
        ]),
      ).toHaveLength(2);
      expect(await bed.store.complete("worker-a", [{ id: c!, resultJson: "null" }])).toEqual([c]);
      await bed.store.fail("worker-a", [{ id: d!, error: "Error: no", delayMs: 0, finalReason: "unrecoverable" }]);
      expect(other).toBeDefined();
      // The completions tally nothing themselves: the worker writes what it counted.
      expect((await counts(bed)).default).toMatchObject({ arrived: 4, succeeded: 0 });
      await bed.store.addSuccessTallies("worker-a", [
        { queue: "default", succeeded: 2, timed: 2, runMs: 400 },
        { queue: "default", succeeded: 1, timed: 0, runMs: 0 },
      ]);
      expect(await counts(bed)).toEqual({
        default: { arrived: 4, succeeded: 3, timed: 2, runMs: 400 },
        other: { arrived: 1, succeeded: 0, timed: 0, runMs: 0 },
      });
    },

    "a task deleted on success or pruned still counts as enqueued, and once as succeeded": async (bed) => {
      const [deleted, pruned, kept] = await bed.insert([{}, {}, {}]);
      await bed.claim([deleted!], "worker-a");
      expect(await bed.store.deleteSucceeded("worker-a", [deleted!])).toEqual([deleted]);
      await bed.succeed([pruned!]);
      // What the two workers counted: one timed success, one not.
      await bed.store.addSuccessTallies("worker-a", [{ queue: "default", succeeded: 1, timed: 1, runMs: 250 }]);
      await bed.store.addSuccessTallies("finisher", [{ queue: "default", succeeded: 1, timed: 0, runMs: 0 }]);
      await bed.untilPast(new Date((await bed.task(pruned!)).finishedAt!.getTime() + 2));
      expect(await bed.store.prune({ retentionMs: 0, limit: 10 })).toEqual([pruned]);
      expect(kept).toBeDefined();
      expect(await counts(bed)).toEqual({ default: { arrived: 3, succeeded: 2, timed: 1, runMs: 250 } });
    },

    "two workers' tallies add up, each in rows of its own, also when written at once": async (bed) => {
      const ids = await bed.insert([{}, {}, {}, {}]);
      await Promise.all([
        bed.store.addSuccessTallies("worker-a", [{ queue: "default", succeeded: 1, timed: 1, runMs: 10 }]),
        bed.other().addSuccessTallies("worker-b", [{ queue: "default", succeeded: 1, timed: 1, runMs: 20 }]),
      ]);
      await bed.store.addSuccessTallies("worker-a", [{ queue: "default", succeeded: 1, timed: 1, runMs: 30 }]);
      await bed.store.addSuccessTallies("worker-b", [{ queue: "default", succeeded: 1, timed: 1, runMs: 40 }]);
      await bed.store.addSuccessTallies("worker-b", []);
      expect(ids).toHaveLength(4);
      expect(await counts(bed)).toEqual({ default: { arrived: 4, succeeded: 4, timed: 4, runMs: 100 } });
    },

    "a deletion of a lost lease tallies nothing": async (bed) => {
      const [id] = await bed.insert([{}]);
      await bed.claim([id!], "worker-b");
      expect(await bed.store.deleteSucceeded("worker-a", [id!])).toEqual([]);
      expect(await counts(bed)).toEqual({ default: { arrived: 1, succeeded: 0, timed: 0, runMs: 0 } });
    },

    "the windows span whole slots back from the database's now, and begin no earlier than the tallies did": async (bed) => {
      await bed.insert([{}]);
      const [full] = await bed.store.queueActivity(WINDOWS);
      expect(full!.rateSeconds).toBeGreaterThanOrEqual(60);
      expect(full!.rateSeconds).toBeLessThanOrEqual(60 + TALLY_SLOT_SECONDS);
      expect(full!.processingSeconds).toBeGreaterThanOrEqual(300);
      expect(full!.processingSeconds).toBeLessThanOrEqual(300 + TALLY_SLOT_SECONDS);
      // The migration writes the millisecond tallying began: the counts start then.
      const now = (await bed.store.now()).getTime() / 1000;
      const began = Math.round((now - 27) * 1000) / 1000;
      await bed.raw.exec(`INSERT INTO tasks_tallies (queue, writer, slot, run_ms) VALUES ('', '', ${Math.floor(began)}, ${Math.round(began * 1000)})`);
      const [bounded] = await bed.store.queueActivity(WINDOWS);
      const expected = now - began;
      expect(bounded!.rateSeconds).toBeGreaterThan(expected - 1);
      expect(bounded!.rateSeconds).toBeLessThan(expected + 5);
      expect(bounded!.processingSeconds).toBeCloseTo(bounded!.rateSeconds, 3);
      expect(bounded!.arrived).toBe(1);
      // A success within the slot tallying began in counts: every tally row was written after it.
      const [id] = await bed.insert([{}]);
      await bed.claim([id!], "worker-a");
      await bed.store.complete("worker-a", [{ id: id!, resultJson: "null" }]);
      await bed.store.addSuccessTallies("worker-a", [{ queue: "default", succeeded: 1, timed: 1, runMs: 5 }]);
      await bed.raw.exec(`UPDATE tasks_tallies SET slot = ${Math.floor(began / TALLY_SLOT_SECONDS) * TALLY_SLOT_SECONDS} WHERE writer = 'worker-a'`);
      expect(await bed.store.queueActivity(WINDOWS)).toMatchObject([{ queue: "default", arrived: 2, succeeded: 1, timed: 1, runMs: 5 }]);
    },

    "an empty table answers no queue": async (bed) => {
      expect(await bed.store.queueActivity(WINDOWS)).toEqual([]);
    },

    "without the tally table, the read, the tallies' write and a deletion on success name the migration": async (bed) => {
      const [id] = await bed.insert([{}]);
      await bed.claim([id!], "worker-a");
      await withoutTallyTable(bed, async () => {
        for (const attempt of [
          () => bed.store.queueActivity(WINDOWS),
          () => bed.store.addSuccessTallies("worker-a", [{ queue: "default", succeeded: 1, timed: 0, runMs: 0 }]),
          () => bed.store.deleteSucceeded("worker-a", [id!]),
        ]) {
          const error = await attempt().then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error).toBeInstanceOf(StoreProblemError);
          expect((error as StoreProblemError).problem.kind).toBe("missing-table");
          expect((error as Error).message).toContain("20261224000000_queue_tallies");
        }
      });
      expect((await bed.task(id!)).status).toBe("running");
    },
  },
});
