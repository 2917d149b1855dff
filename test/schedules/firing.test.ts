// Recurring tasks fired by real cleaners on every dialect: each slot of a per-second schedule becomes exactly one task
// while two cleaners that both believe they lead (two lock keys) fire at once; a new schedule does not fire the slots
// before it was declared; a changed expression keeps the last slot, so nothing fires twice.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCleaner, defineTasks, openStore, silentLogger, type Cleaner, type Store, type TaskRegistry } from "../../src/index.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { waitUntil } from "../support/wait.js";

const tick = (cron: string, missed?: "skip" | "latest") =>
  defineTasks({ tick: { payload: z.object({ n: z.number() }), schedules: [{ cron, payload: { n: 7 }, ...(missed ? { missed } : {}) }] } });

for (const dialect of STORE_DIALECTS) {
  describe(`recurring tasks on ${dialect.name}`, () => {
    let database: { url: string; drop(): Promise<void> };
    const stores: Store[] = [];
    const cleaners: Cleaner[] = [];

    beforeEach(async () => {
      database = await dialect.createDatabase();
    });

    afterEach(async () => {
      for (const cleaner of cleaners.splice(0)) await cleaner.stop();
      for (const store of stores.splice(0)) await store.close();
      await database?.drop();
    });

    /** A cleaner on a store of its own, under its own leader lock, swept only by runOnce(). */
    function cleaner(tasks: TaskRegistry, lockKey: number): Cleaner {
      const store = openStore(database.url, { table: "tasks" });
      stores.push(store);
      const made = createCleaner({ tasks, store, lockKey, logger: silentLogger });
      cleaners.push(made);
      return made;
    }

    async function lastSlot(store: Store): Promise<Date> {
      const [state] = await store.listSchedules();
      expect(state?.schedule).toBe("tick#default");
      return state!.lastSlot;
    }

    async function tickTasks(store: Store): Promise<Array<{ payload: unknown; status: string }>> {
      const page = await store.listTasks({ name: "tick" }, { limit: 1000 }, undefined);
      return Promise.all(page.rows.map(async (row) => ({ payload: (await store.findTask(row.id))?.payload, status: row.status })));
    }

    /** Sweeps both cleaners together until the schedule's last slot is `seconds` past `from`. */
    async function sweepUntil(pair: Cleaner[], store: Store, from: Date, seconds: number): Promise<Date> {
      for (;;) {
        const passes = await Promise.all(pair.map((one) => one.runOnce()));
        for (const pass of passes) expect(pass.errors).toEqual([]);
        const last = await lastSlot(store);
        if (last.getTime() >= from.getTime() + seconds * 1000) return last;
        // The next slot comes with the database's clock: sweep again once it has passed the next whole second.
        const next = Math.floor(last.getTime() / 1000) * 1000 + 1000;
        await waitUntil(async () => (await store.now()).getTime() >= next, "the database clock to reach the next slot");
      }
    }

    it("fires every slot exactly once while two cleaners both fire", async () => {
      const tasks = tick("* * * * * *");
      const pair = [cleaner(tasks, 1), cleaner(tasks, 2)];
      const store = stores[0]!;
      await Promise.all(pair.map((one) => one.runOnce()));
      const declaredAt = await lastSlot(store);
      // A slow first pass can already fire a slot (the second began after the declaration): those are at or before declaredAt.
      const firedFirst = (await tickTasks(store)).length;
      const last = await sweepUntil(pair, store, declaredAt, 3);
      const slots = Math.floor(last.getTime() / 1000) - Math.floor(declaredAt.getTime() / 1000);
      const fired = await tickTasks(store);
      expect(fired).toHaveLength(firedFirst + slots);
      expect(fired.every((task) => JSON.stringify(task.payload) === '{"n":7}' && task.status === "pending")).toBe(true);
    });

    it("does not fire the slots before the schedule was declared", async () => {
      const store0 = openStore(database.url, { table: "tasks" });
      stores.push(store0);
      const now = await store0.now();
      // An hourly slot half an hour from the database's minute: the latest one passed about 30 minutes ago.
      const minute = (now.getUTCMinutes() + 30) % 60;
      const first = cleaner(tick(`${minute} * * * *`, "latest"), 1);
      const pass = await first.runOnce();
      expect(pass).toMatchObject({ leader: true, fired: 0, errors: [] });
      expect(await tickTasks(store0)).toEqual([]);
      expect((await lastSlot(store0)).getTime()).toBeGreaterThanOrEqual(now.getTime());
    });

    it("keeps the last slot when the expression changes, so no slot fires twice", async () => {
      const before = cleaner(tick("* * * * * *"), 1);
      const store = stores[0]!;
      await before.runOnce();
      const declaredAt = await lastSlot(store);
      const firedFirst = (await tickTasks(store)).length;
      await sweepUntil([before], store, declaredAt, 2);
      await before.stop();
      // The same slots, written another way: a restart with a changed expression goes on from the stored last slot.
      const after = cleaner(tick("*/1 * * * * *"), 1);
      const last = await sweepUntil([after], stores[1]!, declaredAt, 4);
      expect((await store.listSchedules())[0]).toMatchObject({ cron: "*/1 * * * * *" });
      const slots = Math.floor(last.getTime() / 1000) - Math.floor(declaredAt.getTime() / 1000);
      expect(await tickTasks(store)).toHaveLength(firedFirst + slots);
    });
  });
}
