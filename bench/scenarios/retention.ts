// Scenario 9: what delete on success saves. The drain of scenario 3 (1 process × 10), with the worker's
// deleteOnSuccess off (each success marks its row succeeded, kept until the cleaner prunes it) and on (each success
// deletes its row); the bench task returns nothing, so every success is deleted.

import type { Peer, Producer, RunTarget } from "../peers/peer.js";
import { drain, type DrainResult } from "./drain.js";

/** Drains `count` tasks with the worker's deleteOnSuccess set as asked; the worker child reads its options from the env. */
export async function retentionDrain(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  options: { deletes: boolean; count: number; timeoutMs: number },
): Promise<DrainResult> {
  const before = process.env.BENCH_OURS_WORKER_OPTIONS;
  const extra = JSON.parse(before ?? "{}") as Record<string, unknown>;
  process.env.BENCH_OURS_WORKER_OPTIONS = JSON.stringify({ ...extra, deleteOnSuccess: options.deletes });
  try {
    return await drain(peer, producer, target, { processes: 1, concurrency: 10, count: options.count, timeoutMs: options.timeoutMs });
  } finally {
    if (before === undefined) delete process.env.BENCH_OURS_WORKER_OPTIONS;
    else process.env.BENCH_OURS_WORKER_OPTIONS = before;
  }
}
