// Scenario 7: what queue controls cost. The drain of scenario 3 (2 processes × 5) on one queue, without limits and with
// limits high enough never to bind (concurrency 1,000 and 1,000,000 starts per second), so the difference is the cost of
// the limited claim alone: its transaction, the queue row's lock, the counts and the starts log.

import type { Peer, Producer, RunTarget } from "../peers/peer.js";
import { drain, type DrainResult } from "./drain.js";

/** The limits of the measured queue ("default", the bench task's). */
export const BENCH_QUEUE_LIMITS = { default: { concurrency: 1000, rateLimit: { starts: 1_000_000, perMs: 1000 } } };

/** Drains `count` tasks with the worker's queueLimits set (limited) or not; the worker child reads its options from the env. */
export async function queueControlsDrain(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  options: { limited: boolean; count: number; timeoutMs: number },
): Promise<DrainResult> {
  const before = process.env.BENCH_OURS_WORKER_OPTIONS;
  const extra = JSON.parse(before ?? "{}") as Record<string, unknown>;
  process.env.BENCH_OURS_WORKER_OPTIONS = JSON.stringify(options.limited ? { ...extra, queueLimits: BENCH_QUEUE_LIMITS } : extra);
  try {
    return await drain(peer, producer, target, { processes: 2, concurrency: 5, count: options.count, timeoutMs: options.timeoutMs });
  } finally {
    if (before === undefined) delete process.env.BENCH_OURS_WORKER_OPTIONS;
    else process.env.BENCH_OURS_WORKER_OPTIONS = before;
  }
}
