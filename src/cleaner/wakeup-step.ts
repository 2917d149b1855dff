// Sweep step 1: publish wake-ups for due tasks that never got a useful one (delayed, retried, failed after-commit
// publish), then re-send lost ones to queues where workers listen and nothing waits: of a paused queue none (its resume
// wakes its backlog), of a limited one no more than its limits let start now.

import type { WakeupTarget } from "../store/task-writes.js";
import type { Store } from "../store/store.js";
import type { SweepContext } from "./sweep.js";
import { telemetry } from "../telemetry/telemetry.js";

/** Returns how many wake-ups the broker confirmed. Does nothing without a broker or while it is unreachable. */
export async function publishDueWakeups(ctx: SweepContext): Promise<number> {
  const { transport, store, options } = ctx;
  if (!transport.publishes || !transport.reachable) return 0;
  const unpublished = () => store.findUnpublished({ graceMs: options.unpublishedGraceMs, limit: options.batchSize });
  let published = await inBatches(ctx, "woke due tasks", unpublished);
  // Staleness is measured in republishAfterMs, so looking for it a few times per such period is enough; the search
  // reads every pending row of a queue that has none, which is worth doing every 1 s interval only for a small table.
  const now = performance.now();
  const last = ctx.staleCheck.at;
  if (last !== undefined && now - last < options.republishAfterMs / 4) return published;
  ctx.staleCheck.at = now;
  const staleQueues = await store.queuesWithStaleWakeups(options.republishAfterMs);
  const queues = await transport.idleQueues(staleQueues);
  if (queues.length === 0) return published;
  const stale = (of: readonly string[]) => (limit: number) => store.findStaleWakeups({ republishAfterMs: options.republishAfterMs, queues: of, limit });
  const { free, limited } = await roomIn(store, queues);
  if (free.length > 0) published += await inBatches(ctx, "re-sent lost wake-ups", stale(free));
  // A wake-up beyond the room would cost a worker a refused claim, again at every search, for as long as the backlog
  // lasts; the rest is claimed by the workers that run the queue's tasks (each polls again as its runs there end).
  for (const [queue, room] of limited) published += await inBatches(ctx, "re-sent lost wake-ups", stale([queue]), room);
  return published;
}

/**
 * Sorts `queues` by their rows: `free` (no row, or no limit and not paused) and `limited`, with the starts each one's
 * limits leave room for now (read without the queue's lock: a snapshot, never more than the claims would take).
 * Paused queues and full ones are left out.
 */
async function roomIn(store: Store, queues: readonly string[]): Promise<{ free: string[]; limited: Map<string, number> }> {
  const rows = new Map((await store.listQueues()).map((row) => [row.queue, row]));
  const free: string[] = [];
  const limited = new Map<string, number>();
  for (const queue of queues) {
    const row = rows.get(queue);
    if (row?.pausedAt) continue;
    if (!row || (row.concurrency === null && row.rateLimit === null)) {
      free.push(queue);
      continue;
    }
    const usage = await store.queueUsage(queue, row.rateLimit?.perMs);
    const room = Math.min(row.concurrency === null ? Infinity : row.concurrency - usage.running, row.rateLimit === null ? Infinity : row.rateLimit.starts - usage.starts);
    if (room > 0) limited.set(queue, room);
  }
  return { free, limited };
}

/** Finds and sends batches (of at most batchSize, and `most` in all) until none is left or the step's time is used. */
async function inBatches(ctx: SweepContext, message: string, find: (limit: number) => Promise<WakeupTarget[]>, most = Infinity): Promise<number> {
  const { sender, options, logger } = ctx;
  const startedAt = performance.now();
  const startedAtMs = Date.now();
  let published = 0;
  let found = 0;
  for (;;) {
    const limit = Math.min(options.batchSize, most - found);
    const batch = await find(limit);
    if (batch.length === 0) break;
    found += batch.length;
    const confirmed = await sender.sendAndCount(batch);
    published += confirmed;
    logger.debug(message, { count: batch.length, confirmed, taskIds: batch.map((task) => task.id) });
    // A batch the broker did not fully confirm would come back unchanged: leave it for the next sweep.
    if (batch.length < limit || found >= most || confirmed < batch.length || !ctx.more(startedAt)) break;
  }
  if (published > 0) logger.info(message, { count: published });
  telemetry()?.wakeupsRepublished(startedAtMs, published);
  return published;
}
