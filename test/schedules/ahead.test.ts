// Slots fired ahead, on every dialect: a sweep enqueues each slot due within scheduleAheadMs as a task delayed to the
// slot's own time (run_at = the slot), once per slot however many cleaners sweep; a worker does not start it before its
// time, and starts it with no cleaner left running; scheduleAheadMs 0 fires only the slots that have come.

import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createCleaner, createWorker, defineTasks, openStore, silentLogger, type Cleaner, type Store, type TaskRegistry } from "../../src/index.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { uniquePrefix } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";

const started: Array<{ n: number; at: number }> = [];
const tick = () =>
  defineTasks({
    tick: {
      payload: z.object({ n: z.number() }),
      schedules: [{ cron: "* * * * * *", payload: { n: 7 } }],
      handler: async ({ n }) => void started.push({ n, at: Date.now() }),
    },
  });

for (const dialect of STORE_DIALECTS) {
  describe(`schedules fired ahead on ${dialect.name}`, () => {
    let database: { url: string; drop(): Promise<void> };
    const stores: Store[] = [];
    const cleaners: Cleaner[] = [];

    beforeEach(async () => {
      database = await dialect.createDatabase();
      started.length = 0;
    });

    afterEach(async () => {
      for (const cleaner of cleaners.splice(0)) await cleaner.stop();
      for (const store of stores.splice(0)) await store.close();
      await database?.drop();
    });

    function store(): Store {
      const made = openStore(database.url, { table: "tasks" });
      stores.push(made);
      return made;
    }

    const broker = { amqpUrl: inject("amqpUrl"), amqpPrefix: uniquePrefix() };

    function cleaner(tasks: TaskRegistry, lockKey: number, scheduleAheadMs?: number): Cleaner {
      const made = createCleaner({ tasks, store: store(), ...broker, lockKey, logger: silentLogger, ...(scheduleAheadMs !== undefined && { scheduleAheadMs }) });
      cleaners.push(made);
      return made;
    }

    async function tickRows(view: Store): Promise<Array<{ runAt: number; status: string }>> {
      const page = await view.listTasks({ name: "tick" }, { limit: 1000 }, undefined);
      return page.rows.map((row) => ({ runAt: row.runAt.getTime(), status: row.status })).sort((a, b) => a.runAt - b.runAt);
    }

    it("enqueues each slot within the window once, delayed to the slot, however many cleaners sweep", async () => {
      const tasks = tick();
      const pair = [cleaner(tasks, 1, 4000), cleaner(tasks, 2, 4000)];
      const view = store();
      await Promise.all(pair.map((one) => one.runOnce())); // declares the schedule
      await Promise.all(pair.map((one) => one.runOnce()));
      await Promise.all(pair.map((one) => one.runOnce()));
      const now = (await view.now()).getTime();
      const rows = await tickRows(view);
      const future = rows.filter((row) => row.runAt > now);
      // The slots of the next four seconds, each once, at whole seconds, pending until their time.
      expect(future.length).toBeGreaterThanOrEqual(3);
      expect(new Set(rows.map((row) => row.runAt)).size).toBe(rows.length);
      expect(future.every((row) => row.runAt % 1000 === 0 && row.runAt <= now + 4000 && row.status === "pending")).toBe(true);
      const [state] = await view.listSchedules();
      expect(state!.lastSlot.getTime()).toBe(rows.at(-1)!.runAt);
    });

    // RabbitMQ everywhere; on PostgreSQL also NOTIFY, whose listeners keep the same timers.
    const transports: Array<{ name: string; options: Record<string, unknown> }> = [{ name: "RabbitMQ", options: broker }];
    if (dialect.name === "postgresql") transports.push({ name: "NOTIFY", options: { wakeups: "notify", amqpPrefix: broker.amqpPrefix } });

    it.each(transports)("a slot fired ahead runs at its time after its leader stopped, not before ($name)", async ({ options }) => {
      const tasks = tick();
      // The worker runs first: it hears the leader's wake-ups that say when (it polls once a minute only).
      const worker = createWorker({ tasks, store: store(), ...options, logger: silentLogger, pollIntervalMs: 60_000 });
      await worker.start();
      try {
        const leader = createCleaner({ tasks, store: store(), ...options, lockKey: 1, logger: silentLogger, scheduleAheadMs: 3000 });
        cleaners.push(leader);
        const view = store();
        await leader.runOnce();
        await leader.runOnce();
        await leader.stop();
        const rows = (await tickRows(view)).filter((row) => row.status === "pending");
        const next = rows.find((row) => row.runAt > Date.now() + 300);
        expect(next, "a slot fired ahead").toBeDefined();
        await waitUntil(() => started.some((run) => run.at >= next!.runAt), "the slot's task to run", 15_000);
        const page = await view.listTasks({ name: "tick" }, { limit: 1000 }, undefined);
        const ran = page.rows.filter((row) => row.status !== "pending");
        // Every task that ran had come due first, by the database's clock.
        for (const row of ran) expect((await view.findTask(row.id))!.runAt.getTime()).toBeLessThanOrEqual((await view.now()).getTime());
      } finally {
        await worker.stop();
      }
    });

    it("with scheduleAheadMs 0 fires only the slots that have come", async () => {
      const one = cleaner(tick(), 1, 0);
      const view = store();
      await one.runOnce();
      await one.runOnce();
      const now = (await view.now()).getTime();
      expect((await tickRows(view)).every((row) => row.runAt <= now)).toBe(true);
    });
  });
}
