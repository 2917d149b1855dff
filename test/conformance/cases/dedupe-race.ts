// The dedupe-key race between two open transactions, the first released once the database shows the second waiting
// for it: one task row, created for one caller, the same task for the other.

import { check, type ConformanceCase } from "./case.js";
import type { QueueClient } from "../harness.js";

export const dedupeRace: ConformanceCase = {
  name: "dedupe-key race between two open transactions: one row, both callers get that task",
  async run(bed) {
    const prisma = bed.prisma();
    const key = `race-${bed.prefix}`;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstInserted!: () => void;
    const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
    const first = prisma.$transaction(async (tx: QueueClient) => {
      const task = await tx.task.enqueue("run", { ms: 0 }, { key, delayMs: 60_000 });
      firstInserted();
      await gate;
      return task;
    });
    await inserted;
    const second = prisma.$transaction(async (tx: QueueClient) => tx.task.enqueue("run", { ms: 0 }, { key, delayMs: 60_000 }));
    await bed.writerBlocked(); // the second transaction's insert waits for the first one's uncommitted row
    release();
    const [a, b] = await Promise.all([first, second]);
    check(a.created && !b.created, `exactly one caller creates the task: first created=${a.created}, second created=${b.created}`);
    check(a.id === b.id, `both callers get the same task: ${a.id} vs ${b.id}`);
    const same = await bed.store.listTasks({ key }, { limit: 10 }, undefined);
    check(same.rows.length === 1, `${same.rows.length} rows carry the key`);
  },
};
