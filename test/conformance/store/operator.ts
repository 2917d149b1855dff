// What an operator does by hand: retry a dead or cancelled task, retry every dead task (of a name), cancel a pending
// task, run a delayed task now. Each answers the tasks it changed (to wake them); one that does not apply changes nothing.

import { expect } from "vitest";
import { area } from "./area.js";

const MISSING = "01930000-0000-7000-8000-0000000000ff";
const HOUR = 3_600_000;

export const operatorArea = area("operator", {
  retryTask: {
    "a dead task goes back to pending: due now, attempts reset, no lease, no finish, not published": async (bed) => {
      const [id] = await bed.insert([{ queue: "other" }]);
      await bed.kill([id!]);
      const before = await bed.store.now();
      expect(await bed.store.retryTask(id!)).toEqual([{ id, queue: "other" }]);
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "pending", attempts: 0, leaseOwner: null, leaseExpiresAt: null, finishedAt: null, publishedAt: null });
      expect(task.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
      expect((await bed.claim([id!]))[0]!.attempts).toBe(1);
    },

    "a cancelled task goes back to pending too": async (bed) => {
      const [id] = await bed.insert([{ delayMs: HOUR }]);
      await bed.store.cancelTask(id!);
      expect(await bed.store.retryTask(id!)).toEqual([{ id, queue: "default" }]);
      expect((await bed.task(id!)).status).toBe("pending");
    },

    "refuses a pending, running, succeeded or missing task, changing nothing": async (bed) => {
      const [pending, running, done] = await bed.insert([{ delayMs: HOUR }, {}, {}]);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      for (const id of [pending!, running!, done!, MISSING]) expect(await bed.store.retryTask(id), id).toEqual([]);
      expect(await bed.task(running!)).toMatchObject({ status: "running", attempts: 1, leaseOwner: "worker-a" });
      expect((await bed.task(done!)).status).toBe("succeeded");
    },
  },

  retryDeadTasks: {
    "puts every dead task of the name back to pending, and only dead ones": async (bed) => {
      const [mailA, mailB, image, cancelled] = await bed.insert([{}, {}, { name: "image" }, {}]);
      await bed.kill([mailA!, mailB!, image!]);
      await bed.store.cancelTask(cancelled!);
      const retried = await bed.store.retryDeadTasks({ name: "mail", limit: 100 });
      expect(retried.map((task) => task.id).sort()).toEqual([mailA, mailB].sort());
      expect(retried.every((task) => task.queue === "default")).toBe(true);
      expect((await bed.task(image!)).status).toBe("dead");
      expect((await bed.task(cancelled!)).status).toBe("cancelled");
      expect(await bed.store.retryDeadTasks({ name: "mail", limit: 100 })).toEqual([]);
    },

    "without a name, every dead task; at most `limit` per call": async (bed) => {
      const ids = await bed.insert([{}, { name: "image" }, {}]);
      await bed.kill(ids);
      const first = await bed.store.retryDeadTasks({ limit: 2 });
      expect(first).toHaveLength(2);
      const rest = await bed.store.retryDeadTasks({ limit: 2 });
      expect([...first, ...rest].map((task) => task.id).sort()).toEqual([...ids].sort());
      for (const id of ids) expect(await bed.task(id)).toMatchObject({ status: "pending", attempts: 0 });
    },
  },

  cancelTask: {
    "a pending task is cancelled, finished now, and never claimed": async (bed) => {
      const [id] = await bed.insert([{ queue: "other" }]);
      expect(await bed.store.cancelTask(id!)).toEqual([{ id, queue: "other" }]);
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "cancelled", finishedBy: null });
      expect(task.finishedAt).toBeInstanceOf(Date);
      expect(await bed.store.claimDue(10, { owner: "w", leaseMs: 1000, names: ["mail"], queues: ["other"] })).toEqual([]);
    },

    "refuses a running, finished, already cancelled or missing task": async (bed) => {
      const [running, done, cancelled] = await bed.insert([{}, {}, {}]);
      await bed.claim([running!]);
      await bed.succeed([done!]);
      await bed.store.cancelTask(cancelled!);
      for (const id of [running!, done!, cancelled!, MISSING]) expect(await bed.store.cancelTask(id), id).toEqual([]);
      expect((await bed.task(running!)).status).toBe("running");
    },
  },

  runTaskNow: {
    "a delayed pending task becomes due now, and its wake-up is the caller's to send": async (bed) => {
      const [id] = await bed.insert([{ delayMs: HOUR, queue: "other" }]);
      expect(await bed.store.runTaskNow(id!)).toEqual([{ id, queue: "other" }]);
      const task = await bed.task(id!);
      expect(task.runAt.getTime()).toBeLessThanOrEqual((await bed.store.now()).getTime());
      expect(task.publishedAt).toBeNull();
      expect((await bed.claim([id!]))[0]!.status).toBe("running");
    },

    "refuses a running, finished or missing task": async (bed) => {
      const [running, done] = await bed.insert([{}, {}]);
      await bed.claim([running!]);
      await bed.kill([done!]);
      for (const id of [running!, done!, MISSING]) expect(await bed.store.runTaskNow(id), id).toEqual([]);
      expect((await bed.task(done!)).status).toBe("dead");
    },
  },
});
