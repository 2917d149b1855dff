// Recurring tasks: the schedules' rows and their fired slots. A new schedule starts at the database's now and keeps its
// last slot through a changed declaration; a slot is claimed once, however many transactions try, and a rolled-back
// claim leaves it free; the last slot never moves back; pruning keeps every slot after it; a missing schedule table
// says which table and which migration.

import { expect } from "vitest";
import type { ScheduleDeclaration, ScheduleState } from "../../../src/store/schedules.js";
import type { Store } from "../../../src/store/store.js";
import { uuidv7 } from "../../../src/uuid.js";
import { area } from "./area.js";
import { prepared, sendInsert, untilBlockedOrSettled, type StoreBed } from "./bed.js";

class Rollback extends Error {}

/** The declaration of schedule "mail#<key>", every minute in UTC unless `change` says otherwise. */
function declared(key: string, change: Partial<ScheduleDeclaration> = {}): ScheduleDeclaration {
  return { schedule: `mail#${key}`, taskName: "mail", cron: "* * * * *", timeZone: "UTC", ...change };
}

/** `at` moved by `ms`. */
function plus(at: Date, ms: number): Date {
  return new Date(at.getTime() + ms);
}

/** Syncs one declaration and resolves its state. */
async function one(store: Store, declaration: ScheduleDeclaration): Promise<ScheduleState> {
  const states = await store.syncSchedules([declaration]);
  expect(states.map((state) => state.schedule)).toEqual([declaration.schedule]);
  return states[0]!;
}

/** The state listSchedules shows for `schedule`. */
async function listed(store: Store, schedule: string): Promise<ScheduleState | undefined> {
  return (await store.listSchedules()).find((state) => state.schedule === schedule);
}

/** A schedule table renamed away for the length of `fn`, on the test's own connection. */
export async function withoutScheduleTable(bed: StoreBed, fn: () => Promise<void>): Promise<void> {
  await bed.raw.exec("ALTER TABLE tasks_schedules RENAME TO tasks_schedules_away");
  try {
    await fn();
  } finally {
    await bed.raw.exec("ALTER TABLE tasks_schedules_away RENAME TO tasks_schedules");
  }
}

export const schedulesArea = area("schedules", {
  syncSchedules: {
    "inserts a new schedule with its last slot at the database's now": async (bed) => {
      const before = await bed.store.now();
      const state = await one(bed.store, declared("a"));
      const after = await bed.store.now();
      expect(state).toMatchObject(declared("a"));
      expect(state.lastSlot.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(state.lastSlot.getTime()).toBeLessThanOrEqual(after.getTime() + 1); // a database storing milliseconds may round up
      expect(state.updatedAt.getTime()).toBe(state.lastSlot.getTime());
      expect(await bed.store.listSchedules()).toEqual([state]);
    },

    "a changed declaration updates its task name, cron and time zone and keeps its last slot": async (bed) => {
      const first = await one(bed.store, declared("a"));
      const slot = plus(first.lastSlot, 60_000);
      await bed.store.advanceSchedule("mail#a", slot);
      await bed.untilPast(plus(first.updatedAt, 5));
      const change = { taskName: "image", cron: "0 * * * *", timeZone: "Europe/Paris" };
      const changed = await one(bed.store, declared("a", change));
      expect(changed).toMatchObject({ ...declared("a", change), lastSlot: slot });
      expect(changed.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
      expect(await listed(bed.store, "mail#a")).toEqual(changed);
    },

    "the same declaration again changes nothing, not even updatedAt": async (bed) => {
      const first = await one(bed.store, declared("a"));
      await bed.untilPast(plus(first.updatedAt, 5));
      expect(await one(bed.store, declared("a"))).toEqual(first);
      expect(await bed.store.listSchedules()).toEqual([first]);
    },

    "leaves undeclared schedules as they are and resolves only the declared ones, by id": async (bed) => {
      const [a, b] = await bed.store.syncSchedules([declared("b"), declared("a")]);
      expect([a!.schedule, b!.schedule]).toEqual(["mail#a", "mail#b"]);
      await bed.store.advanceSchedule("mail#b", plus(b!.lastSlot, 60_000));
      expect((await bed.store.syncSchedules([declared("a")])).map((state) => state.schedule)).toEqual(["mail#a"]);
      expect(await bed.store.listSchedules()).toEqual([a, { ...b, lastSlot: plus(b!.lastSlot, 60_000), updatedAt: expect.any(Date) }]);
      expect(await bed.store.syncSchedules([])).toEqual([]);
    },

    "two syncs at once: one row per schedule, and both resolve that row": async (bed) => {
      const other = bed.other();
      const [mine, theirs] = await Promise.all([bed.store.syncSchedules([declared("a"), declared("b")]), other.syncSchedules([declared("b"), declared("a")])]);
      const rows = await bed.store.listSchedules();
      expect(rows.map((state) => state.schedule)).toEqual(["mail#a", "mail#b"]);
      expect(mine).toEqual(rows);
      expect(theirs).toEqual(rows);
    },
  },

  claimScheduleSlot: {
    "true when it writes the slot, false for the same slot again; another slot or schedule is its own": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const slot = plus(lastSlot, 60_000);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(true);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(false);
      expect(await bed.store.claimScheduleSlot("mail#a", plus(slot, 60_000), uuidv7())).toBe(true);
      expect(await bed.store.claimScheduleSlot("mail#b", slot, uuidv7())).toBe(true);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(false);
    },

    "two transactions claiming the same slot: the second waits for the first and gets false": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const slot = plus(lastSlot, 60_000);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const first = bed.store
        .transaction(async (tx) => {
          const won = await tx.claimScheduleSlot("mail#a", slot, uuidv7());
          entered();
          await released;
          return won;
        })
        .finally(() => entered());
      await inside;
      let settled = false;
      const second = bed
        .other()
        .transaction((tx) => tx.claimScheduleSlot("mail#a", slot, uuidv7()))
        .finally(() => (settled = true));
      second.catch(() => {});
      try {
        // Row locks: the second claim waits on the first's key, as pg_locks or InnoDB shows. One write lock for the
        // database (SQLite): the first holds it, so the second cannot begin before it ends.
        if (bed.dialect.writeLock === "row") await untilBlockedOrSettled(bed, () => settled);
        else expect(await bed.raw.writerBlocked(), "the first transaction holds the write lock").toBe(true);
      } finally {
        release();
      }
      expect([await first, await second]).toEqual([true, false]);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(false);
    },

    "a claim whose transaction rolls back leaves the slot free": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const slot = plus(lastSlot, 60_000);
      await expect(
        bed.store.transaction(async (tx) => {
          expect(await tx.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(true);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(true);
    },

    "through the app's Prisma client: the claim commits with the app's transaction and vanishes with its rollback": async (bed) => {
      const prisma = bed.prisma();
      const app = bed.store.through(prisma);
      const { lastSlot } = await one(app, declared("a"));
      expect(await app.listSchedules()).toEqual(await bed.store.listSchedules());
      const [kept, dropped] = [plus(lastSlot, 60_000), plus(lastSlot, 120_000)];
      const row = prepared({ name: "mail" });
      await prisma.$transaction(async (tx: unknown) => {
        const store = bed.store.through(tx);
        await sendInsert(store, [row]);
        expect(await store.claimScheduleSlot("mail#a", kept, row.id)).toBe(true);
        await store.advanceSchedule("mail#a", kept);
      });
      await expect(
        prisma.$transaction(async (tx: unknown) => {
          expect(await bed.store.through(tx).claimScheduleSlot("mail#a", dropped, uuidv7())).toBe(true);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await app.claimScheduleSlot("mail#a", kept, uuidv7())).toBe(false);
      expect(await app.claimScheduleSlot("mail#a", dropped, uuidv7())).toBe(true);
      expect((await listed(app, "mail#a"))?.lastSlot).toEqual(kept);
      await app.advanceSchedule("mail#a", dropped);
      expect(await app.pruneScheduleSlots(plus(await app.now(), 60_000), 10)).toBe(2);
    },

    "the task's insert, the claim and the advance commit together in one transaction": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const slot = plus(lastSlot, 60_000);
      const row = prepared({ name: "mail" });
      await bed.store.transaction(async (tx) => {
        await sendInsert(tx, [row]);
        expect(await tx.claimScheduleSlot("mail#a", slot, row.id)).toBe(true);
        await tx.advanceSchedule("mail#a", slot);
      });
      expect((await bed.task(row.id)).status).toBe("pending");
      expect((await listed(bed.store, "mail#a"))?.lastSlot).toEqual(slot);
      expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(false);
    },
  },

  advanceSchedule: {
    "moves the last slot forward": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      await bed.store.advanceSchedule("mail#a", plus(lastSlot, 60_000));
      expect((await listed(bed.store, "mail#a"))?.lastSlot).toEqual(plus(lastSlot, 60_000));
      await bed.store.advanceSchedule("mail#a", plus(lastSlot, 120_001));
      expect((await listed(bed.store, "mail#a"))?.lastSlot).toEqual(plus(lastSlot, 120_001));
    },

    "never moves it back: an earlier or the same slot leaves it": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const later = plus(lastSlot, 120_000);
      await bed.store.advanceSchedule("mail#a", later);
      await bed.store.advanceSchedule("mail#a", plus(lastSlot, 60_000));
      expect((await listed(bed.store, "mail#a"))?.lastSlot).toEqual(later);
      await bed.store.advanceSchedule("mail#a", later);
      await bed.store.advanceSchedule("mail#a", plus(lastSlot, -3_600_000));
      expect((await listed(bed.store, "mail#a"))?.lastSlot).toEqual(later);
    },

    "a schedule without a row: nothing happens": async (bed) => {
      await bed.store.advanceSchedule("mail#none", await bed.store.now());
      expect(await bed.store.listSchedules()).toEqual([]);
    },
  },

  listSchedules: {
    "every schedule, ordered by id, with its state": async (bed) => {
      expect(await bed.store.listSchedules()).toEqual([]);
      const states = await bed.store.syncSchedules([declared("c"), declared("a", { timeZone: "Asia/Tokyo" }), declared("B")]);
      expect(states.map((state) => state.schedule)).toEqual(["mail#B", "mail#a", "mail#c"]);
      const slot = plus(states[1]!.lastSlot, 60_000);
      await bed.store.advanceSchedule("mail#a", slot);
      const rows = await bed.store.listSchedules();
      expect(rows.map((state) => [state.schedule, state.timeZone])).toEqual([
        ["mail#B", "UTC"],
        ["mail#a", "Asia/Tokyo"],
        ["mail#c", "UTC"],
      ]);
      expect(rows[1]!.lastSlot).toEqual(slot);
    },

    "a missing schedule table rejects with the missing-table problem naming it and the migration": async (bed) => {
      await withoutScheduleTable(bed, async () => {
        for (const attempt of [() => bed.store.listSchedules(), () => bed.store.syncSchedules([declared("a")])]) {
          const error = await attempt().then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(error, "the operation rejects").toBeInstanceOf(Error);
          const problem = bed.store.classify(error);
          expect(problem).toMatchObject({ kind: "missing-table", lasting: true });
          expect(problem.detail).toContain('"tasks_schedules"');
          expect(problem.detail).toContain("npx task-runner migrate");
          expect((error as { problem?: unknown }).problem).toEqual(problem);
        }
        expect(await bed.store.check(), "the task table still serves").toBeUndefined();
      });
    },
  },

  pruneScheduleSlots: {
    "deletes the slots at or behind the last slot, and keeps the one after it": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const [old, last, next] = [plus(lastSlot, -60_000), lastSlot, plus(lastSlot, 60_000)];
      for (const slot of [old, last, next]) expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(true);
      const before = plus(await bed.store.now(), 60_000);
      expect(await bed.store.pruneScheduleSlots(before, 10)).toBe(2);
      expect(await bed.store.claimScheduleSlot("mail#a", next, uuidv7()), "the slot after the last one is still taken").toBe(false);
      expect(await bed.store.pruneScheduleSlots(before, 10)).toBe(0);
      expect(await bed.store.claimScheduleSlot("mail#a", old, uuidv7()), "a pruned slot's row is gone").toBe(true);
    },

    "keeps slots fired at or after `before`": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      const before = await bed.store.now();
      for (const slot of [plus(lastSlot, -120_000), plus(lastSlot, -60_000)]) expect(await bed.store.claimScheduleSlot("mail#a", slot, uuidv7())).toBe(true);
      expect(await bed.store.pruneScheduleSlots(before, 10)).toBe(0);
      expect(await bed.store.claimScheduleSlot("mail#a", plus(lastSlot, -60_000), uuidv7())).toBe(false);
      expect(await bed.store.pruneScheduleSlots(plus(await bed.store.now(), 60_000), 10)).toBe(2);
    },

    "deletes at most `limit` per call": async (bed) => {
      const { lastSlot } = await one(bed.store, declared("a"));
      for (const ms of [-180_000, -120_000, -60_000]) expect(await bed.store.claimScheduleSlot("mail#a", plus(lastSlot, ms), uuidv7())).toBe(true);
      const before = plus(await bed.store.now(), 60_000);
      expect(await bed.store.pruneScheduleSlots(before, 2)).toBe(2);
      expect(await bed.store.pruneScheduleSlots(before, 2)).toBe(1);
      expect(await bed.store.pruneScheduleSlots(before, 2)).toBe(0);
    },
  },
});
