// Prune: finished tasks (succeeded, dead, cancelled) past retention are deleted, in batches; pending and running ones
// are kept whatever their age.

import { check, eventually, filterFor, type ConformanceCase } from "./case.js";

export const prune: ConformanceCase = {
  name: "prune: finished tasks past retention go, pending and running stay",
  async run(bed) {
    const prisma = bed.prisma();
    const [succeeded, dead, cancelled, pending, running] = await prisma.task.enqueueMany([
      { name: "run", payload: { ms: 0 }, options: { delayMs: 60_000 } },
      { name: "run", payload: { ms: 0 }, options: { delayMs: 60_000 } },
      { name: "run", payload: { ms: 0 }, options: { delayMs: 60_000 } },
      { name: "run", payload: { ms: 0 }, options: { delayMs: 60_000 } },
      { name: "run", payload: { ms: 0 } },
    ]);
    for (const id of [succeeded!.id, dead!.id]) await bed.store.runTaskNow(id);
    const claimed = await bed.store.claimByIds([succeeded!.id, dead!.id, running!.id], filterFor("pruner"));
    check(
      claimed.every((result) => result.claimed),
      "could not claim the tasks to finish",
    );
    await bed.store.complete("pruner", [{ id: succeeded!.id, resultJson: "1" }]);
    await bed.store.fail("pruner", [{ id: dead!.id, error: "x", delayMs: 0, finalReason: "unrecoverable" }]);
    await bed.store.cancelTask(cancelled!.id);
    // Batches of 1 with retention 0: the cleaner must loop to delete all three.
    const cleaner = bed.cleaner({ retentionMs: 0, batchSize: 1 });
    await eventually(async () => (await cleaner.runOnce()).leader, "the cleaner to lead");
    await cleaner.runOnce();
    for (const gone of [succeeded!, dead!, cancelled!]) check((await bed.store.findTask(gone.id)) === undefined, `finished task ${gone.id} was not pruned`);
    check((await bed.store.findTask(pending!.id))?.status === "pending", "a pending task was pruned");
    check((await bed.store.findTask(running!.id))?.status === "running", "a running task was pruned");
    const kept = await bed.store.prune({ retentionMs: 60_000, limit: 10 });
    check(kept.length === 0, "prune deleted tasks within their retention");
  },
};
