// The lease guard: once a worker's lease expired and another worker claimed the task, the first worker can no longer
// complete, fail, extend or release it; the new owner can.

import { check, filterFor, sleep, type ConformanceCase } from "./case.js";

export const leaseGuard: ConformanceCase = {
  name: "lease guard: a worker that lost its lease cannot complete, fail, extend or release the task",
  catches: "complete-without-lease-guard",
  async run(bed) {
    const prisma = bed.prisma();
    const { id } = await prisma.task.enqueue("run", { ms: 0 });
    const first = await bed.store.claimByIds([id], filterFor("worker-a", 150));
    check(first[0]?.claimed, `worker-a could not claim a due pending task: ${JSON.stringify(first)}`);
    await sleep(400);
    const recovered = await bed.store.requeueExpired([id]);
    check(recovered.length === 1 && recovered[0]!.status === "pending", `recovery did not requeue the expired task: ${JSON.stringify(recovered)}`);
    const second = await bed.store.claimByIds([id], filterFor("worker-b"));
    check(second[0]?.claimed?.leaseOwner === "worker-b", "worker-b could not claim the recovered task");

    const completed = await bed.store.complete("worker-a", [{ id, resultJson: '"late"' }]);
    check(completed.length === 0, "worker-a completed a task whose lease worker-b holds");
    const failed = await bed.store.fail("worker-a", [{ id, error: "late", delayMs: 0, finalReason: null }]);
    check(failed.length === 0, "worker-a failed a task whose lease worker-b holds");
    const extended = await bed.store.extendLeases("worker-a", [id], 30_000);
    check(extended.length === 1 && !extended[0]!.extended && extended[0]!.lost, `worker-a extended a lease it lost: ${JSON.stringify(extended)}`);
    const released = await bed.store.release("worker-a", [id]);
    check(released.length === 0, "worker-a released a task whose lease worker-b holds");
    const held = await bed.store.findTask(id);
    check(held?.status === "running" && held.leaseOwner === "worker-b", `the task should still be running for worker-b: ${JSON.stringify(held)}`);

    check((await bed.store.complete("worker-b", [{ id, resultJson: '"done"' }])).length === 1, "worker-b could not complete its task");
    const done = await bed.store.findTask(id);
    check(done?.status === "succeeded" && done.result === "done" && done.leaseOwner === null, `unexpected final row: ${JSON.stringify(done)}`);
  },
};
