// Sweep step 3: delete finished tasks older than the retention window, one bounded DELETE at a time.

import type { SweepContext } from "./sweep.js";

/** Deletes finished tasks past retention in batches; returns how many it deleted. */
export async function pruneFinished(ctx: SweepContext): Promise<number> {
  const { store, options, logger } = ctx;
  const startedAt = performance.now();
  let pruned = 0;
  for (;;) {
    const ids = await store.prune({ retentionMs: options.retentionMs, limit: options.batchSize });
    pruned += ids.length;
    if (ids.length > 0) logger.debug("pruned finished tasks", { count: ids.length, taskIds: ids });
    if (ids.length < options.batchSize || !ctx.more(startedAt)) break;
  }
  if (pruned > 0) logger.info("pruned finished tasks past retention", { count: pruned, retentionMs: options.retentionMs });
  return pruned;
}
