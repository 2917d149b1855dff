// Leadership among cleaners: at most one holder of a lock key at a time, the holder named by the database, the lock
// handed over on release; two keys are two locks.

import { randomInt } from "node:crypto";
import { expect } from "vitest";
import { electionTiming } from "../../../src/cleaner/election-timing.js";
import { silentLogger } from "../../../src/index.js";
import type { LeaderLock } from "../../../src/store/leader-lock.js";
import type { Store } from "../../../src/store/store.js";
import { area } from "./area.js";
import type { StoreBed } from "./bed.js";

/** Runs `fn` with contenders made by `contend`, releasing every one of them afterwards. */
async function withContenders(bed: StoreBed, fn: (contend: (store?: Store, key?: number) => LeaderLock, key: number) => Promise<void>): Promise<void> {
  // A key of its own per case: the lock outlives the case on some dialects (a lease row), and other tests share servers.
  const key = randomInt(1, 2 ** 31 - 1);
  const locks: LeaderLock[] = [];
  const contend = (store: Store = bed.store, lockKey = key) => {
    const lock = store.leaderLock(lockKey, electionTiming(200), silentLogger);
    locks.push(lock);
    return lock;
  };
  try {
    await fn(contend, key);
  } finally {
    for (const lock of locks) await lock.release();
  }
}

export const leaderArea = area("leader", {
  defaultLockKey: {
    "one number for every store of the same table": async (bed) => {
      const key = bed.store.defaultLockKey();
      expect(Number.isInteger(key)).toBe(true);
      expect(bed.other().defaultLockKey()).toBe(key);
    },
  },

  leaderLock: {
    "a free lock is taken; while it is held, contenders of this store and of another are refused; the holder keeps it": async (bed) => {
      await withContenders(bed, async (contend) => {
        const first = contend();
        const second = contend();
        const third = contend(bed.other());
        expect(first.isLeader).toBe(false);
        expect(await first.check()).toBe(true);
        expect(first.isLeader).toBe(true);
        expect(await second.check()).toBe(false);
        expect(await third.check()).toBe(false);
        expect(await first.check()).toBe(true);
        expect(second.isLeader || third.isLeader).toBe(false);
      });
    },

    "release hands the lock to another contender; releasing again, or a lock never held, is harmless": async (bed) => {
      await withContenders(bed, async (contend) => {
        const first = contend();
        const other = contend(bed.other());
        const never = contend();
        expect(await first.check()).toBe(true);
        await first.release();
        expect(first.isLeader).toBe(false);
        await first.release();
        await never.release();
        expect(await other.check()).toBe(true);
        expect(await first.check()).toBe(false);
      });
    },

    "two keys are two locks": async (bed) => {
      await withContenders(bed, async (contend, key) => {
        expect(await contend(bed.store, key).check()).toBe(true);
        expect(await contend(bed.other(), key + 1).check()).toBe(true);
      });
    },
  },

  leaderHolder: {
    "names the holder while the lock is held, and nobody once it is released": async (bed) => {
      await withContenders(bed, async (contend, key) => {
        expect(await bed.store.leaderHolder(key)).toBeUndefined();
        const lock = contend(bed.other());
        expect(await lock.check()).toBe(true);
        const holder = await bed.store.leaderHolder(key);
        expect(holder).toBeDefined();
        expect(holder!.holder === null || typeof holder!.holder === "string").toBe(true);
        expect(holder!.since === null || holder!.since instanceof Date).toBe(true);
        await lock.release();
        expect(await bed.store.leaderHolder(key)).toBeUndefined();
      });
    },
  },
});
