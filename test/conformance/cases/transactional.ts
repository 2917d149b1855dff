// A transactional handler's writes commit with its success, exactly once: an attempt that fails after writing leaves
// no trace, the attempt that succeeds leaves one row.

import { startsOf } from "../run-log.js";
import { check, eventually, type ConformanceCase } from "./case.js";

export const transactionalOnce: ConformanceCase = {
  name: "transactional handler: its writes happen exactly once, with the success",
  async run(bed) {
    const prisma = bed.prisma();
    await bed.cleaner().start(); // it wakes each retry when its backoff is over
    await bed.worker({ prisma });
    const tag = `effect-${bed.prefix}`;
    const { id } = await prisma.task.enqueue("effect", { tag, failOn: [1, 2] });
    await bed.wake([id]);
    await eventually(async () => (await bed.store.findTask(id))?.status === "succeeded", "the transactional task to succeed");
    const rows = await prisma.report.count({ where: { result: tag } });
    check(rows === 1, `the handler's write exists ${rows} times, expected once (attempts 1 and 2 failed after writing)`);
    const task = await bed.store.findTask(id);
    check(task?.attempts === 3 && startsOf(bed.runLog).get(id) === 3, `expected 3 attempts, got ${task?.attempts}`);
  },
};
