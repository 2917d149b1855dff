// What the row says after a task ran: the worker that finished it (finished_by, since every way out of running clears
// lease_owner), its earlier errors as a bounded history, no current error once it succeeded, and the dashboard's
// recent workers counting the finisher.

import { ERROR_HISTORY_LIMIT } from "../../../src/store/error-history.js";
import { check, filterFor, sleep, type ConformanceCase } from "./case.js";

export const outcomeHistory: ConformanceCase = {
  name: "outcome history: finished_by, a bounded error history, no current error after success, recent workers",
  async run(bed) {
    const prisma = bed.prisma();
    const { id } = await prisma.task.enqueue("run", { ms: 0 }, { maxAttempts: 20 });
    const runOnce = async (owner: string) => {
      const claimed = await bed.store.claimByIds([id], filterFor(owner));
      check(claimed[0]?.claimed, `${owner} could not claim the task: ${JSON.stringify(claimed)}`);
    };
    await runOnce("worker-a");
    const failed = await bed.store.fail("worker-a", [{ id, error: "Error: first", delayMs: 0, finalReason: null }]);
    check(failed[0]?.status === "pending", `the first failure should retry: ${JSON.stringify(failed)}`);
    const retrying = await bed.store.findTask(id);
    check(retrying?.lastError === "Error: first" && retrying.finishedBy === "worker-a", `after a failure: ${JSON.stringify(retrying)}`);
    check(retrying.errors.length === 1 && retrying.errors[0]!.attempt === 1 && retrying.errors[0]!.error === "Error: first", `history after one failure: ${JSON.stringify(retrying.errors)}`);
    check(retrying.errors[0]!.at instanceof Date && Math.abs(retrying.errors[0]!.at.getTime() - retrying.updatedAt.getTime()) < 5_000, `the failure's time: ${JSON.stringify(retrying.errors[0])}`);

    // An expired lease recovered by the cleaner joins the history too, and names no finisher.
    const lost = await bed.store.claimByIds([id], filterFor("worker-lost", 100));
    check(lost[0]?.claimed, "worker-lost could not claim the task");
    await sleep(300);
    await bed.store.requeueExpired([id]);
    const recovered = await bed.store.findTask(id);
    check(recovered?.finishedBy === null && recovered.errors.length === 2 && /lease expired: worker worker-lost/.test(recovered.errors[1]!.error), `after recovery: ${JSON.stringify(recovered)}`);

    for (let attempt = 3; attempt <= 13; attempt++) {
      await runOnce("worker-b");
      await bed.store.fail("worker-b", [{ id, error: `Error: attempt ${attempt}`, delayMs: 0, finalReason: null }]);
    }
    const bounded = await bed.store.findTask(id);
    check(bounded?.errors.length === ERROR_HISTORY_LIMIT, `the history keeps ${ERROR_HISTORY_LIMIT} entries, not ${bounded?.errors.length}`);
    check(bounded.errors[0]!.attempt === 4 && bounded.errors.at(-1)!.attempt === 13 && bounded.errors.at(-1)!.error === "Error: attempt 13", `the newest entries, oldest first: ${JSON.stringify(bounded.errors.map((e) => e.attempt))}`);

    await runOnce("worker-c");
    check((await bed.store.complete("worker-c", [{ id, resultJson: '"ok"' }])).length === 1, "worker-c could not complete the task");
    const done = await bed.store.findTask(id);
    check(done?.status === "succeeded" && done.lastError === null && done.leaseOwner === null, `a succeeded task shows no current error: ${JSON.stringify(done)}`);
    check(done.finishedBy === "worker-c" && done.errors.length === ERROR_HISTORY_LIMIT, `finisher and history after success: ${done.finishedBy}, ${done.errors.length}`);

    const workers = await bed.store.recentWorkers(3600);
    const seen = workers.find((worker) => worker.worker === "worker-c");
    check(seen?.finished === 1 && seen.running === 0, `recent workers should count worker-c's finish: ${JSON.stringify(workers)}`);
  },
};
