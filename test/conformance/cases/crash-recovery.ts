// Recovery after a real SIGKILL: the worker running a task dies; once its lease expires the cleaner puts the task
// back, and another worker runs it to success. The lost run counts as an attempt.

import { readRuns } from "../run-log.js";
import { check, eventually, type ConformanceCase } from "./case.js";

export const crashRecovery: ConformanceCase = {
  name: "recovery after SIGKILL: the task of a killed worker runs again elsewhere once its lease expires",
  timeoutMs: 60_000,
  async run(bed) {
    const prisma = bed.prisma();
    const victim = await bed.spawnWorker("victim", { CONFORMANCE_LEASE_MS: "1000" });
    // Long enough for the kill to land mid-run; the run after the recovery need not wait.
    const { id } = await prisma.task.enqueue("run", { ms: 3000, retryMs: 0 });
    await bed.wake([id]);
    await eventually(
      () =>
        readRuns(bed.runLog)
          .get(id)
          ?.some((event) => event.e === "start" && event.worker === "victim") ?? false,
      "the victim to start the task",
    );
    await victim.kill();
    await bed.cleaner().start();
    await bed.worker();
    await eventually(async () => (await bed.store.findTask(id))?.status === "succeeded", "the task to succeed after the crash", 30_000);
    const events = readRuns(bed.runLog).get(id) ?? [];
    const starts = events.filter((event) => event.e === "start");
    check(
      starts.length === 2 && starts[0]!.worker === "victim" && starts[1]!.worker !== "victim",
      `expected a start by the victim then one elsewhere: ${JSON.stringify(events)}`,
    );
    check(!events.some((event) => event.e === "end" && event.worker === "victim"), "the killed worker cannot have finished the task");
    check((await bed.store.findTask(id))?.attempts === 2, "the lost run counts as an attempt");
  },
};
