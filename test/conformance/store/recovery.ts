// Recovery of tasks whose worker vanished: finding expired leases, holding one for a recovery function, and putting
// tasks back to pending or to dead. A lease that still holds is never touched.

import { expect } from "vitest";
import { area } from "./area.js";

const lostBy = (owner: string, attempt: number, of: number) => `lease expired: worker ${owner} stopped renewing it during attempt ${attempt} of ${of}`;

export const recoveryArea = area("recovery", {
  findExpiredLeases: {
    "lists running tasks whose lease expired, longest expired first, and leaves them as they are": async (bed) => {
      const [first, second] = await bed.insert([{}, {}]);
      await bed.expired([first!], "lost-1");
      await bed.expired([second!], "lost-2");
      const found = await bed.store.findExpiredLeases(10);
      expect(found.map((task) => [task.id, task.leaseOwner])).toEqual([
        [first, "lost-1"],
        [second, "lost-2"],
      ]);
      expect(found[0]).toEqual(await bed.task(first!));
      expect(await bed.task(first!)).toMatchObject({ status: "running", leaseOwner: "lost-1" });
    },

    "a live lease, a pending task and a finished one are not listed": async (bed) => {
      const [live, , done] = await bed.insert([{}, {}, {}]);
      await bed.claim([live!], "alive", 60_000);
      await bed.succeed([done!]);
      expect(await bed.store.findExpiredLeases(10)).toEqual([]);
    },

    "takes at most `limit`": async (bed) => {
      const ids = await bed.insert([{}, {}, {}]);
      await bed.expired(ids);
      expect(await bed.store.findExpiredLeases(2)).toHaveLength(2);
      expect(await bed.store.findExpiredLeases(0)).toEqual([]);
    },
  },

  holdExpiredLease: {
    "hands the expired lease to the holder for holdMs and answers the task as it was": async (bed) => {
      const [id] = await bed.insert();
      const [lost] = await bed.expired([id!], "lost-worker");
      const before = await bed.store.now();
      const held = await bed.store.holdExpiredLease(id!, "cleaner-1", 30_000);
      expect(held).toMatchObject({ id, status: "running", leaseOwner: "lost-worker", leaseExpiresAt: lost!.leaseExpiresAt, attempts: 1 });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "running", leaseOwner: "cleaner-1", attempts: 1 });
      expect(task.leaseExpiresAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() + 30_000 - 1);
      expect(await bed.store.findExpiredLeases(10)).toEqual([]);
    },

    "hands out nothing while the lease still holds, nor for a task that is not running, nor a missing one": async (bed) => {
      const [live, pending] = await bed.insert([{}, {}]);
      await bed.claim([live!], "alive", 60_000);
      expect(await bed.store.holdExpiredLease(live!, "cleaner-1", 30_000)).toBeUndefined();
      expect(await bed.store.holdExpiredLease(pending!, "cleaner-1", 30_000)).toBeUndefined();
      expect(await bed.store.holdExpiredLease("01930000-0000-7000-8000-0000000000cc", "cleaner-1", 30_000)).toBeUndefined();
      expect(await bed.task(live!)).toMatchObject({ leaseOwner: "alive" });
    },

    "a held task is not held twice, and the worker that lost it can no longer finish it": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "lost-worker");
      expect(await bed.store.holdExpiredLease(id!, "cleaner-1", 30_000)).toBeDefined();
      expect(await bed.store.holdExpiredLease(id!, "cleaner-2", 30_000)).toBeUndefined();
      expect(await bed.store.complete("lost-worker", [{ id: id!, resultJson: "null" }])).toEqual([]);
      expect(await bed.store.extendLeases("lost-worker", [id!], 60_000)).toEqual([{ id, extended: false, lost: true }]);
      expect((await bed.task(id!)).leaseOwner).toBe("cleaner-1");
    },
  },

  requeueExpired: {
    "puts an expired task back to pending, due now, the lost run counted, with why; answers it with the lost worker": async (bed) => {
      const [id] = await bed.insert([{ queue: "other", maxAttempts: 4 }], true);
      await bed.expired([id!], "lost-worker");
      const before = await bed.store.now();
      const [recovered] = await bed.store.requeueExpired([id!]);
      const after = await bed.store.now();
      expect(recovered).toEqual({
        id,
        name: "mail",
        queue: "other",
        status: "pending",
        attempts: 1,
        maxAttempts: 4,
        leaseOwner: "lost-worker",
        lastError: lostBy("lost-worker", 1, 4),
      });
      const task = await bed.task(id!);
      expect(task).toMatchObject({
        status: "pending",
        attempts: 1,
        leaseOwner: null,
        leaseExpiresAt: null,
        publishedAt: null,
        finishedAt: null,
        finishedBy: null,
        lastError: lostBy("lost-worker", 1, 4),
      });
      expect(task.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
      expect(task.runAt.getTime()).toBeLessThanOrEqual(after.getTime() + 1);
      expect(task.errors.map((entry) => [entry.attempt, entry.error])).toEqual([[1, lostBy("lost-worker", 1, 4)]]);
      expect((await bed.claim([id!], "worker-b"))[0]!.attempts).toBe(2);
    },

    "a task that used its last attempt goes dead instead": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 1 }]);
      await bed.expired([id!], "lost-worker");
      const [recovered] = await bed.store.requeueExpired([id!]);
      expect(recovered).toMatchObject({ id, status: "dead", attempts: 1, maxAttempts: 1, leaseOwner: "lost-worker" });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "dead", leaseOwner: null });
      expect(task.finishedAt).toBeInstanceOf(Date);
    },

    "leaves a lease that still holds, tasks not asked for, and tasks that are not running": async (bed) => {
      const [live, other, pending] = await bed.insert([{}, {}, {}]);
      await bed.claim([live!], "alive", 60_000);
      await bed.expired([other!], "lost-worker");
      expect(await bed.store.requeueExpired([live!, pending!, "01930000-0000-7000-8000-0000000000dd"])).toEqual([]);
      expect(await bed.task(live!)).toMatchObject({ status: "running", leaseOwner: "alive" });
      expect(await bed.task(other!)).toMatchObject({ status: "running", leaseOwner: "lost-worker" });
      expect(await bed.store.requeueExpired([])).toEqual([]);
    },

    "with a held lease: requeues what that holder holds, in the former owner's name, and not what another holder holds": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "lost-worker");
      await bed.store.holdExpiredLease(id!, "cleaner-1", 30_000);
      expect(await bed.store.requeueExpired([id!])).toEqual([]);
      expect(await bed.store.requeueExpired([id!], { holder: "cleaner-2", formerOwner: "lost-worker" })).toEqual([]);
      const [recovered] = await bed.store.requeueExpired([id!], { holder: "cleaner-1", formerOwner: "lost-worker" });
      expect(recovered).toMatchObject({ id, status: "pending", leaseOwner: "lost-worker", lastError: lostBy("lost-worker", 1, 5) });
      expect(await bed.task(id!)).toMatchObject({ status: "pending", leaseOwner: null, lastError: lostBy("lost-worker", 1, 5) });
    },

    "a row another transaction is writing is left for the next pass (one write lock: recovered after the wait)": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "lost-worker");
      const recovered = await bed.duringWrite(id!, (store) => store.requeueExpired([id!]));
      if (bed.dialect.writeLock === "row") {
        expect(recovered).toEqual([]);
        expect((await bed.task(id!)).status).toBe("running");
      } else {
        expect(recovered.map((task) => task.status)).toEqual(["pending"]);
      }
    },
  },

  abandonExpired: {
    "sends an expired task to dead whatever attempts remain, finished now, with why and the detail": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 9 }]);
      await bed.expired([id!], "lost-worker");
      const [recovered] = await bed.store.abandonExpired([id!], "the ledger said no");
      const why = `${lostBy("lost-worker", 1, 9)}; abandoned by the recovery policy; the ledger said no`;
      expect(recovered).toEqual({ id, name: "mail", queue: "default", status: "dead", attempts: 1, maxAttempts: 9, leaseOwner: "lost-worker", lastError: why });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "dead", leaseOwner: null, leaseExpiresAt: null, finishedBy: null, lastError: why });
      expect(task.finishedAt).toBeInstanceOf(Date);
      expect(task.errors.at(-1)!.error).toBe(why);
      const [plain] = await bed.insert();
      await bed.expired([plain!], "lost-worker");
      expect((await bed.store.abandonExpired([plain!]))[0]!.lastError).toBe(`${lostBy("lost-worker", 1, 5)}; abandoned by the recovery policy`);
    },

    "leaves a lease that still holds and tasks that are not running": async (bed) => {
      const [live, pending] = await bed.insert([{}, {}]);
      await bed.claim([live!], "alive", 60_000);
      expect(await bed.store.abandonExpired([live!, pending!])).toEqual([]);
      expect(await bed.task(live!)).toMatchObject({ status: "running", leaseOwner: "alive" });
      expect(await bed.store.abandonExpired([])).toEqual([]);
    },

    "with a held lease: abandons what that holder holds, in the former owner's name": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "lost-worker");
      await bed.store.holdExpiredLease(id!, "cleaner-1", 30_000);
      expect(await bed.store.abandonExpired([id!], "no", { holder: "cleaner-2", formerOwner: "lost-worker" })).toEqual([]);
      const [recovered] = await bed.store.abandonExpired([id!], "the function threw", { holder: "cleaner-1", formerOwner: "lost-worker" });
      expect(recovered).toMatchObject({ id, status: "dead", leaseOwner: "lost-worker" });
      expect(recovered!.lastError).toBe(`${lostBy("lost-worker", 1, 5)}; abandoned by the recovery policy; the function threw`);
    },
  },
});
