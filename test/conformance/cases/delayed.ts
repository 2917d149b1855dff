// Delayed tasks: a task enqueued with delayMs does not start before its run_at, then runs once.

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
