// Claims: by id (what a wake-up names) and of due tasks (polling). What is claimed, what is not and why, the filter,
// the limit, the order (priority, then run_at), and a row another transaction is writing.

import { expect } from "vitest";
import { area } from "./area.js";
import { filterFor } from "./bed.js";

const MISSING = "01930000-0000-7000-8000-0000000000aa";

export const claimArea = area("claim", {
  claimByIds: {
    "claims a due pending task: running, attempt 1, its owner, a lease of leaseMs from the database clock": async (bed) => {
      const id = await bed.one({ payload: { to: "ada" }, priority: 3, maxAttempts: 4 });
      const before = await bed.store.now();
      const [result] = await bed.store.claimByIds([id], filterFor("worker-a", 60_000));
      const after = await bed.store.now();
      expect(result).toMatchObject({ id, claimed: { id, status: "running", attempts: 1, leaseOwner: "worker-a", payload: { to: "ada" }, priority: 3, maxAttempts: 4 } });
      const lease = result!.claimed!.leaseExpiresAt!.getTime();
      expect(lease).toBeGreaterThanOrEqual(before.getTime() + 60_000 - 1);
      expect(lease).toBeLessThanOrEqual(after.getTime() + 60_000 + 1);
    },

    "hands back the row as stored": async (bed) => {
      const id = await bed.one({ payload: { nested: [1, { two: null }], text: 'é " \\ \u{1F600}' }, key: "k-stored" });
      const [result] = await bed.store.claimByIds([id], filterFor("worker-a"));
      expect(result!.claimed).toEqual(await bed.task(id));
    },

    "says why each id was not claimed: missing, not pending, not due, not ours, with the row's name and queue": async (bed) => {
      const [done, later, otherName, otherQueue, free] = await bed.insert([{}, { delayMs: 60_000 }, { name: "video" }, { queue: "elsewhere" }, {}]);
      await bed.succeed([done!]);
      const results = await bed.store.claimByIds([done!, later!, otherName!, otherQueue!, free!, MISSING], filterFor("reasons"));
      const byId = new Map(results.map((result) => [result.id, result]));
      expect(results).toHaveLength(6);
      expect(byId.get(done!)).toEqual({ id: done, claimed: null, reason: "not-pending", name: "mail", queue: "default" });
      expect(byId.get(later!)).toEqual({ id: later, claimed: null, reason: "not-due", name: "mail", queue: "default" });
      expect(byId.get(otherName!)).toEqual({ id: otherName, claimed: null, reason: "not-ours", name: "video", queue: "default" });
      expect(byId.get(otherQueue!)).toEqual({ id: otherQueue, claimed: null, reason: "not-ours", name: "mail", queue: "elsewhere" });
      expect(byId.get(MISSING)).toEqual({ id: MISSING, claimed: null, reason: "missing" });
      expect(byId.get(free!)?.claimed?.status).toBe("running");
      for (const id of [later!, otherName!, otherQueue!]) expect((await bed.task(id)).status).toBe("pending");
    },

    "one id at a time says, for every kind of id, what a batch says, and leaves the rows alike": async (bed) => {
      const kinds = async () => {
        const [claimable, done, later, otherName] = await bed.insert([{}, {}, { delayMs: 60_000 }, { name: "video" }]);
        await bed.succeed([done!]);
        return [claimable!, done!, later!, otherName!, `01930000-0000-7000-8000-${Math.random().toString(16).slice(2, 14).padEnd(12, "0")}`];
      };
      const outcome = (result: { claimed: unknown; reason?: string }) => (result.claimed ? "claimed" : result.reason);
      const alone = await kinds();
      const oneByOne = [];
      for (const id of alone) oneByOne.push(...(await bed.store.claimByIds([id], filterFor("claimer"))));
      const together = await kinds();
      const batch = await bed.store.claimByIds(together, filterFor("claimer"));
      const order = (ids: string[], results: typeof batch) => ids.map((id) => outcome(results.find((result) => result.id === id)!));
      expect(order(alone, oneByOne)).toEqual(["claimed", "not-pending", "not-due", "not-ours", "missing"]);
      expect(order(together, batch)).toEqual(order(alone, oneByOne));
      const state = async (ids: string[]) =>
        Promise.all(
          ids.slice(0, 4).map(async (id) => {
            const { status, attempts, leaseOwner } = await bed.task(id);
            return { status, attempts, leaseOwner };
          }),
        );
      expect(await state(together)).toEqual(await state(alone));
    },

    "a running task is not claimed again: the second claimer hears not pending, the lease stays the first's": async (bed) => {
      const id = await bed.one();
      await bed.claim([id], "worker-a");
      const [second] = await bed.store.claimByIds([id], filterFor("worker-b"));
      expect(second).toMatchObject({ id, claimed: null, reason: "not-pending" });
      expect(await bed.task(id)).toMatchObject({ status: "running", leaseOwner: "worker-a", attempts: 1 });
    },

    "two claimers asking for the same tasks at once: each task goes to exactly one of them": async (bed) => {
      const ids = await bed.insert([{}, {}, {}, {}]);
      const other = bed.other();
      const [a, b] = await Promise.all([bed.store.claimByIds(ids, filterFor("worker-a")), other.claimByIds([...ids].reverse(), filterFor("worker-b"))]);
      const won = [...a, ...b].filter((result) => result.claimed);
      expect(won.map((result) => result.id).sort()).toEqual([...ids].sort());
      for (const result of won) expect((await bed.task(result.id)).leaseOwner).toBe(result.claimed!.leaseOwner);
    },

    "an id asked twice is claimed once, with one result": async (bed) => {
      const id = await bed.one();
      const results = await bed.store.claimByIds([id, id], filterFor("worker-a"));
      expect(results).toHaveLength(1);
      expect(results[0]!.claimed?.attempts).toBe(1);
    },

    "an empty list claims nothing": async (bed) => {
      await bed.one();
      expect(await bed.store.claimByIds([], filterFor("worker-a"))).toEqual([]);
      expect(await bed.store.claimDue(10, filterFor("someone", 30_000, ["nothing"]))).toEqual([]);
    },

    "each claim counts an attempt: a task failed with no delay is claimed again as attempt 2": async (bed) => {
      const id = await bed.one();
      await bed.claim([id], "worker-a");
      await bed.store.fail("worker-a", [{ id, error: "Error: once", delayMs: 0, finalReason: null }]);
      const [again] = await bed.claim([id], "worker-b");
      expect(again).toMatchObject({ attempts: 2, leaseOwner: "worker-b", status: "running" });
    },

    "a row another transaction is writing is skipped as locked, never waited for (one write lock for the database: claimed once the writer is done)": async (bed) => {
      const id = await bed.one();
      const [result] = await bed.duringWrite(id, (store) => store.claimByIds([id], filterFor("worker-a")));
      if (bed.dialect.writeLock === "row") {
        expect(result).toEqual({ id, claimed: null, reason: "locked", name: "mail", queue: "default" });
        expect((await bed.task(id)).status).toBe("pending");
      } else {
        expect(result?.claimed).toMatchObject({ id, status: "running", attempts: 1 });
      }
    },
  },

  claimDue: {
    "claims due pending tasks: running, an attempt counted, the owner's lease": async (bed) => {
      const ids = await bed.insert([{}, {}]);
      const claimed = await bed.store.claimDue(10, filterFor("poller", 45_000));
      expect(claimed.map((task) => task.id).sort()).toEqual([...ids].sort());
      const now = await bed.store.now();
      for (const task of claimed) {
        expect(task).toMatchObject({ status: "running", attempts: 1, leaseOwner: "poller" });
        expect(task.leaseExpiresAt!.getTime()).toBeGreaterThan(now.getTime() + 40_000);
        expect(task).toEqual(await bed.task(task.id));
      }
    },

    "takes at most `limit`, and the rest stay pending for the next claim": async (bed) => {
      const ids = await bed.insert([{}, {}, {}, {}, {}]);
      const first = await bed.store.claimDue(2, filterFor("poller"));
      expect(first).toHaveLength(2);
      const rest = await bed.store.claimDue(10, filterFor("poller"));
      expect([...first, ...rest].map((task) => task.id).sort()).toEqual([...ids].sort());
      expect(await bed.store.claimDue(10, filterFor("poller"))).toEqual([]);
    },

    "a limit of 0 claims nothing": async (bed) => {
      await bed.insert([{}, {}]);
      expect(await bed.store.claimDue(0, filterFor("poller"))).toEqual([]);
      expect((await bed.store.claimDue(5, filterFor("poller"))).length).toBe(2);
    },

    "highest priority first, then the oldest run_at": async (bed) => {
      const now = await bed.store.now();
      const at = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000);
      const [lowOld, highNew, highOld, midNew] = await bed.insert([
        { priority: 0, runAt: at(50) },
        { priority: 5, runAt: at(10) },
        { priority: 5, runAt: at(30) },
        { priority: 1, runAt: at(5) },
      ]);
      const order: string[] = [];
      for (let i = 0; i < 4; i++) order.push(...(await bed.store.claimDue(1, filterFor("poller"))).map((task) => task.id));
      expect(order).toEqual([highOld, highNew, midNew, lowOld]);
    },

    "across queues it takes the best of all of them": async (bed) => {
      const now = await bed.store.now();
      const at = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000);
      const [mailOld, mailNew, otherHigh, otherOld] = await bed.insert([
        { queue: "default", runAt: at(8) },
        { queue: "default", runAt: at(1) },
        { queue: "other", runAt: at(0.5), priority: 1 },
        { queue: "other", runAt: at(9) },
      ]);
      expect((await bed.store.claimDue(2, filterFor("poller"))).map((task) => task.id).sort()).toEqual([otherHigh, otherOld].sort());
      expect((await bed.store.claimDue(5, filterFor("poller"))).map((task) => task.id).sort()).toEqual([mailOld, mailNew].sort());
    },

    "only due tasks, only the filter's names and queues": async (bed) => {
      const [due, later, video, elsewhere] = await bed.insert([{}, { delayMs: 60_000 }, { name: "video" }, { queue: "elsewhere" }]);
      expect((await bed.store.claimDue(10, filterFor("poller"))).map((task) => task.id)).toEqual([due]);
      for (const id of [later!, video!, elsewhere!]) expect((await bed.task(id)).status).toBe("pending");
      expect((await bed.store.claimDue(10, filterFor("video-worker", 30_000, ["video"], ["default"]))).map((task) => task.id)).toEqual([video]);
    },

    "never takes a task that is running or finished": async (bed) => {
      const [running, done, dead] = await bed.insert([{}, {}, {}]);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      await bed.kill([dead!]);
      expect(await bed.store.claimDue(10, filterFor("poller"))).toEqual([]);
    },

    "skips a row another transaction is writing and takes the next (one write lock for the database: waits, then takes both)": async (bed) => {
      const [held, free] = await bed.insert([{ priority: 9 }, {}]);
      const claimed = await bed.duringWrite(held!, (store) => store.claimDue(2, filterFor("poller")));
      if (bed.dialect.writeLock === "row") {
        expect(claimed.map((task) => task.id)).toEqual([free]);
        expect((await bed.task(held!)).status).toBe("pending");
      } else {
        expect(claimed.map((task) => task.id).sort()).toEqual([held, free].sort());
      }
    },
  },
});
