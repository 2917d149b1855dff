// Sweep step 1: publish wake-ups for due tasks that never got a useful one (delayed, retried, failed after-commit
// publish), then re-send lost ones to queues where workers listen and nothing waits.

import type { WakeupTarget } from "../store/task-writes.js";
import type { SweepContext } from "./sweep.js";
import { telemetry } from "../telemetry/telemetry.js";

/** Returns how many wake-ups the broker confirmed. Does nothing without a broker or while it is unreachable. */
export async function publishDueWakeups(ctx: SweepContext): Promise<number> {
  const { transport, store, options } = ctx;
  if (!transport.publishes || !transport.reachable) return 0;
  let published = await inBatches(ctx, "woke due tasks", () => store.findUnpublished({ graceMs: options.unpublishedGraceMs, limit: options.batchSize }));
  // Staleness is measured in republishAfterMs, so looking for it a few times per such period is enough; the search
  // reads every pending row of a queue that has none, which is worth doing every 1 s interval only for a small table.
  const now = performance.now();
  const last = ctx.staleCheck.at;
  if (last !== undefined && now - last < options.republishAfterMs / 4) return published;
  ctx.staleCheck.at = now;
  const staleQueues = await store.queuesWithStaleWakeups(options.republishAfterMs);
  const queues = await transport.idleQueues(staleQueues);
  if (queues.length > 0) {
    published += await inBatches(ctx, "re-sent lost wake-ups", () =>
      store.findStaleWakeups({ republishAfterMs: options.republishAfterMs, queues, limit: options.batchSize }),
    );
  }
  return published;
}

async function inBatches(ctx: SweepContext, message: string, find: () => Promise<WakeupTarget[]>): Promise<number> {
  const { sender, options, logger } = ctx;
  const startedAt = performance.now();
  const startedAtMs = Date.now();
  let published = 0;
  for (;;) {
    const batch = await find();
    if (batch.length === 0) break;
    const confirmed = await sender.sendAndCount(batch);
    published += confirmed;
    logger.debug(message, { count: batch.length, confirmed, taskIds: batch.map((task) => task.id) });
    // A batch the broker did not fully confirm would come back unchanged: leave it for the next sweep.
    if (batch.length < options.batchSize || confirmed < batch.length || !ctx.more(startedAt)) break;
  }
  if (published > 0) logger.info(message, { count: published });
  telemetry()?.wakeupsRepublished(startedAtMs, published);
  return published;
}
