// Delayed tasks: a task enqueued with delayMs does not start before its run_at, then runs once; with no cleaner and
// polls far apart it still starts within a few tens of ms of its run_at.

import { readRuns } from "../run-log.js";
import { check, eventually, type ConformanceCase } from "./case.js";

export const delayedTasks: ConformanceCase = {
  name: "delayed tasks: not before run_at, then once",
  async run(bed) {
    const prisma = bed.prisma();
    await bed.cleaner().start();
    await bed.worker();
    const delayed = await prisma.task.enqueue("run", { ms: 0 }, { delayMs: 1200 });
    const claimedEarly = await bed.store.claimDue(10, { owner: "early", leaseMs: 1000, names: ["run"], queues: ["default"] });
    check(
      claimedEarly.every((task) => task.id !== delayed.id),
      "claimDue took a task before its run_at",
    );
    await eventually(async () => (await bed.store.findTask(delayed.id))?.status === "succeeded", "the delayed task to run");
    const starts = (readRuns(bed.runLog).get(delayed.id) ?? []).filter((event) => event.e === "start");
    check(starts.length === 1, `the delayed task started ${starts.length} times`);
    // Both clocks are this machine's: the database's (run_at) and the handler's.
    check(starts[0]!.t >= delayed.runAt.getTime() - 50, `it started ${delayed.runAt.getTime() - starts[0]!.t} ms before its run_at`);
  },
};

/** Generous: a sweep of the old way never comes within it here, and a loaded machine is not a benchmark. */
const LATE_BOUND_MS = 250;

export const delayedOnTime: ConformanceCase = {
  name: "delayed tasks: on time with no cleaner sweeping and polls a minute apart",
  async run(bed) {
    const prisma = bed.prisma();
    // No cleaner, and polls a minute apart: only the delayed enqueue's own wake-up can start the task on time.
    await bed.worker({ pollIntervalMs: 60_000 });
    // One due task first: the app's client and the worker's claim path do their first-use work outside the measure.
    const warm = await prisma.task.enqueue("run", { ms: 0 });
    await eventually(async () => (await bed.store.findTask(warm.id))?.status === "succeeded", "a due task to run");
    const delayed = await prisma.$transaction(async (tx) => tx.task.enqueue("run", { ms: 0 }, { delayMs: 300 }));
    await eventually(async () => (await bed.store.findTask(delayed.id))?.status === "succeeded", "the delayed task to run", 10_000);
    const starts = (readRuns(bed.runLog).get(delayed.id) ?? []).filter((event) => event.e === "start");
    check(starts.length === 1, `the delayed task started ${starts.length} times`);
    // Both clocks are this machine's: the database's (run_at) and the handler's.
    const late = starts[0]!.t - delayed.runAt.getTime();
    check(late >= -50, `it started ${-late} ms before its run_at`);
    check(late < LATE_BOUND_MS, `it started ${late} ms after its run_at`);
  },
};
