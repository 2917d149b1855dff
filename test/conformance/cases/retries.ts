// Retries then dead: a failing task runs maxAttempts times with backoff and ends dead with its last error; an
// UnrecoverableError ends it dead at once.

import { startsOf } from "../run-log.js";
import { check, eventually, type ConformanceCase } from "./case.js";

export const retriesThenDead: ConformanceCase = {
  name: "retries then dead: maxAttempts runs, then dead with the last error; unrecoverable at once",
  async run(bed) {
    const prisma = bed.prisma();
    await bed.cleaner().start(); // it wakes each retry when its backoff is over
    await bed.worker();
    const failing = await prisma.task.enqueue("fail", { final: false }, { maxAttempts: 3 });
    const final = await prisma.task.enqueue("fail", { final: true }, { maxAttempts: 5 });
    await bed.wake([failing.id, final.id]);
    await eventually(async () => {
      const [a, b] = await Promise.all([bed.store.findTask(failing.id), bed.store.findTask(final.id)]);
      return a?.status === "dead" && b?.status === "dead";
    }, "both tasks to be dead");
    const a = await bed.store.findTask(failing.id);
    const b = await bed.store.findTask(final.id);
    const starts = startsOf(bed.runLog);
    check(a?.attempts === 3 && starts.get(failing.id) === 3, `the failing task ran ${starts.get(failing.id)} times, recorded ${a?.attempts} attempts; expected 3`);
    check(a?.lastError?.includes("attempt 3 failed"), `last error should be the third attempt's: ${a?.lastError}`);
    check(a?.finishedAt !== null, "a dead task has a finish time");
    check(b?.attempts === 1 && starts.get(final.id) === 1, `the unrecoverable task ran ${starts.get(final.id)} times; expected once`);
  },
};
