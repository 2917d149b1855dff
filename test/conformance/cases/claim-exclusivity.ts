// Two worker processes, every wake-up delivered three times: each task runs exactly once and succeeds.

import { startsOf } from "../run-log.js";
import { check, eventually, type ConformanceCase } from "./case.js";

export const claimExclusivity: ConformanceCase = {
  name: "claim exclusivity: two worker processes, duplicated wake-ups, every task runs once",
  catches: "claim-without-lock",
  timeoutMs: 90_000,
  async run(bed) {
    const prisma = bed.prisma();
    await Promise.all([bed.spawnWorker("w1"), bed.spawnWorker("w2")]);
    const tasks = await prisma.task.enqueueMany(Array.from({ length: 60 }, () => ({ name: "run", payload: { ms: 20 } })));
    const ids = tasks.map((task) => task.id);
    await bed.wake(ids, 3);
    await eventually(
      async () => {
        const states = await Promise.all(ids.map((id) => bed.store.findTask(id)));
        return states.every((task) => task?.status === "succeeded");
      },
      "every task to succeed",
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // late duplicates, if any, would start by now
    const starts = startsOf(bed.runLog);
    const twice = ids.filter((id) => (starts.get(id) ?? 0) !== 1);
    check(twice.length === 0, `${twice.length} of ${ids.length} tasks did not run exactly once (e.g. ${twice[0]}: ${starts.get(twice[0]!) ?? 0} runs)`);
  },
};
