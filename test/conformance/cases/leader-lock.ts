// The leader lock: of two contenders one leads; the other takes over once the first releases; the database names the
// holder.

import { electionTiming } from "../../../src/cleaner/election-timing.js";
import { openStore, silentLogger } from "../../../src/index.js";
import { check, type ConformanceCase } from "./case.js";

export const leaderLock: ConformanceCase = {
  name: "leader lock: one holder at a time, handed over on release",
  catches: "leader-grants-twice",
  async run(bed) {
    const other = openStore(bed.url, { max: 1 });
    const timing = electionTiming(200);
    const key = bed.store.defaultLockKey();
    const first = bed.store.leaderLock(key, timing, silentLogger);
    const second = bed.store.leaderLock(key, timing, silentLogger);
    const third = other.leaderLock(key, timing, silentLogger);
    try {
      check(await first.check(), "the first contender could not take a free lock");
      check(!(await second.check()), "a second contender of the same store got the lock while it was held");
      check(!(await third.check()), "a contender of another store got the lock while it was held");
      check(await first.check(), "the holder lost the lock by checking it again");
      check((await bed.store.leaderHolder(key)) !== undefined, "nobody is named as the holder while one leads");
      await first.release();
      check(!first.isLeader, "a released lock still says it leads");
      check(await third.check(), "the lock was not free for another contender after release");
    } finally {
      await Promise.all([first.release(), second.release(), third.release()]);
      await other.close();
    }
  },
};
