// The cleaner's wake-up scans and the marks behind them: due tasks nobody published (delayed, retried, or missed at
// commit after a grace), due tasks whose wake-up is stale, and the published mark set and cleared.

import { expect } from "vitest";
import { area } from "./area.js";
import type { StoreBed } from "./bed.js";

const HOUR = 3_600_000;

/** Waits on the database clock until `ms` have passed since the task's `field`. */
async function olderThan(bed: StoreBed, id: string, field: "createdAt" | "publishedAt" | "runAt", ms: number): Promise<void> {
  const task = await bed.task(id);
  await bed.untilPast(new Date(task[field]!.getTime() + ms));
}

/**
 * An age, in ms, that the wake-up of `older` has passed and that of `newer` has not (both published, `newer` at least
 * 150 ms later): the midpoint between them, as seen from the database clock now.
 */
async function betweenPublished(bed: StoreBed, older: string, newer: string): Promise<number> {
  const [a, b] = [(await bed.task(older)).publishedAt!.getTime(), (await bed.task(newer)).publishedAt!.getTime()];
  expect(b - a).toBeGreaterThanOrEqual(150);
  return (await bed.store.now()).getTime() - (a + b) / 2;
}

const ids = (targets: ReadonlyArray<{ id: string }>) => targets.map((target) => target.id);

export const wakeupsArea = area("wake-ups", {
  findUnpublished: {
    "a task due at commit and never published: left to after-commit publishing for graceMs, then listed": async (bed) => {
      const [id] = await bed.insert([{ queue: "other" }]);
      await olderThan(bed, id!, "createdAt", 20);
      expect(await bed.store.findUnpublished({ graceMs: HOUR, limit: 10 })).toEqual([]);
      expect(await bed.store.findUnpublished({ graceMs: 10, limit: 10 })).toEqual([{ id, queue: "other" }]);
    },

    "a delayed task is listed as soon as it is due, whatever the grace": async (bed) => {
      const [id] = await bed.insert([{ delayMs: 30 }]);
      expect(await bed.store.findUnpublished({ graceMs: HOUR, limit: 10 })).toEqual([]);
      await olderThan(bed, id!, "runAt", 0);
      expect(ids(await bed.store.findUnpublished({ graceMs: HOUR, limit: 10 }))).toEqual([id]);
    },

    "a retried task is listed as soon as it is due, whatever the grace, even when its first run was published": async (bed) => {
      const [id] = await bed.insert([{}], true);
      // A retry is told from a task due at commit by its run_at being later than its creation: let the clock move on.
      await olderThan(bed, id!, "createdAt", 1);
      await bed.claim([id!]);
      await bed.store.fail("worker-a", [{ id: id!, error: "Error: again", delayMs: 0, finalReason: null }]);
      await olderThan(bed, id!, "runAt", 0);
      expect(ids(await bed.store.findUnpublished({ graceMs: HOUR, limit: 10 }))).toEqual([id]);
    },

    "published, not yet due, running and finished tasks are not listed": async (bed) => {
      const [published, later, running, done] = await bed.insert([{}, { delayMs: HOUR }, {}, {}]);
      await bed.store.markPublished([published!]);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      await olderThan(bed, later!, "createdAt", 5);
      expect(await bed.store.findUnpublished({ graceMs: 0, limit: 10 })).toEqual([]);
    },

    "oldest due first, at most `limit`": async (bed) => {
      const now = await bed.store.now();
      const [newer, oldest, middle] = await bed.insert([
        { runAt: new Date(now.getTime() - 1_000) },
        { runAt: new Date(now.getTime() - 30_000) },
        { runAt: new Date(now.getTime() - 10_000) },
      ]);
      await olderThan(bed, newer!, "createdAt", 5);
      expect(ids(await bed.store.findUnpublished({ graceMs: 0, limit: 10 }))).toEqual([oldest, middle, newer]);
      expect(ids(await bed.store.findUnpublished({ graceMs: 0, limit: 2 }))).toEqual([oldest, middle]);
    },
  },

  queuesWithStaleWakeups: {
    "names each queue holding a due pending task woken longer ago than republishAfterMs, once": async (bed) => {
      const [a] = await bed.insert([{ queue: "default" }, { queue: "default" }, { queue: "other" }, { queue: "fresh" }], true);
      await olderThan(bed, a!, "publishedAt", 150);
      const [freshToo] = await bed.insert([{ queue: "fresh-too" }], true);
      const [fresh] = await bed.insert([{ queue: "fresh" }]);
      await bed.store.markPublished([fresh!]);
      const between = await betweenPublished(bed, a!, freshToo!);
      expect((await bed.store.queuesWithStaleWakeups(between)).sort()).toEqual(["default", "fresh", "other"]);
      expect(await bed.store.queuesWithStaleWakeups(HOUR)).toEqual([]);
    },

    "a queue whose only tasks are unpublished, delayed, running or finished has nothing stale": async (bed) => {
      const [running, done, unpublished] = await bed.insert([{}, {}, { queue: "other" }], true);
      await bed.insert([{ queue: "later", delayMs: HOUR }], true);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      await bed.store.markUnpublished([unpublished!]);
      await olderThan(bed, running!, "createdAt", 20);
      expect(await bed.store.queuesWithStaleWakeups(10)).toEqual([]);
    },
  },

  findStaleWakeups: {
    "lists the due pending tasks of the queues asked whose wake-up is older than republishAfterMs, oldest due first": async (bed) => {
      const now = await bed.store.now();
      const [late, early, elsewhere] = await bed.insert(
        [{ runAt: new Date(now.getTime() - 1_000) }, { runAt: new Date(now.getTime() - 9_000), queue: "other" }, { queue: "third" }],
        true,
      );
      await olderThan(bed, late!, "publishedAt", 30);
      expect(await bed.store.findStaleWakeups({ republishAfterMs: 20, queues: ["default", "other"], limit: 10 })).toEqual([
        { id: early, queue: "other" },
        { id: late, queue: "default" },
      ]);
      expect(ids(await bed.store.findStaleWakeups({ republishAfterMs: 20, queues: ["default", "other"], limit: 1 }))).toEqual([early]);
      expect(ids(await bed.store.findStaleWakeups({ republishAfterMs: 20, queues: ["third"], limit: 10 }))).toEqual([elsewhere]);
      expect(await bed.store.findStaleWakeups({ republishAfterMs: HOUR, queues: ["default", "other"], limit: 10 })).toEqual([]);
      expect(await bed.store.findStaleWakeups({ republishAfterMs: 20, queues: [], limit: 10 })).toEqual([]);
    },

    "never lists a task that was never published, is not due, or is not pending": async (bed) => {
      const [never] = await bed.insert([{}]);
      const [later, running] = await bed.insert([{ delayMs: HOUR }, {}], true);
      await bed.claim([running!]);
      await olderThan(bed, never!, "createdAt", 30);
      expect(await bed.store.findStaleWakeups({ republishAfterMs: 10, queues: ["default"], limit: 10 })).toEqual([]);
      expect(later).toBeDefined();
    },
  },

  markPublished: {
    "marks due pending tasks published now and answers how many; findUnpublished no longer lists them": async (bed) => {
      const [a, b] = await bed.insert([{}, {}]);
      await olderThan(bed, b!, "createdAt", 5);
      expect(await bed.store.markPublished([a!, b!])).toBe(2);
      const now = await bed.store.now();
      expect((await bed.task(a!)).publishedAt!.getTime()).toBeLessThanOrEqual(now.getTime());
      expect(await bed.store.findUnpublished({ graceMs: 0, limit: 10 })).toEqual([]);
    },

    "skips tasks not yet due, running, finished or missing": async (bed) => {
      const [later, running, done] = await bed.insert([{ delayMs: HOUR }, {}, {}]);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      expect(await bed.store.markPublished([later!, running!, done!, "01930000-0000-7000-8000-0000000000ee"])).toBe(0);
      for (const id of [later!, running!, done!]) expect((await bed.task(id)).publishedAt).toBeNull();
      expect(await bed.store.markPublished([])).toBe(0);
    },

    "skips a row another transaction is writing, never waiting for it (one write lock: marked after the wait)": async (bed) => {
      const [held, free] = await bed.insert([{}, {}]);
      const marked = await bed.duringWrite(held!, (store) => store.markPublished([held!, free!]));
      if (bed.dialect.writeLock === "row") {
        expect(marked).toBe(1);
        expect((await bed.task(held!)).publishedAt).toBeNull();
      } else {
        expect(marked).toBe(2);
      }
      expect((await bed.task(free!)).publishedAt).toBeInstanceOf(Date);
    },
  },

  markUnpublished: {
    "clears the mark of published pending tasks, answers how many, and the cleaner's scan lists them again": async (bed) => {
      const [a, b] = await bed.insert([{}, { queue: "other" }], true);
      expect(await bed.store.markUnpublished([a!, b!])).toBe(2);
      expect((await bed.task(a!)).publishedAt).toBeNull();
      await olderThan(bed, b!, "createdAt", 10);
      expect((await bed.store.findUnpublished({ graceMs: 5, limit: 10 })).sort((x, y) => x.queue.localeCompare(y.queue))).toEqual([
        { id: a, queue: "default" },
        { id: b, queue: "other" },
      ]);
    },

    "leaves tasks never published, running or finished": async (bed) => {
      const [never] = await bed.insert([{}]);
      const [running, done] = await bed.insert([{}, {}], true);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      expect(await bed.store.markUnpublished([never!, running!, done!])).toBe(0);
      expect(await bed.store.markUnpublished([])).toBe(0);
    },
  },
});
