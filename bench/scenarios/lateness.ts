// Scenario 5, delays on time: an idle worker (1 process × 10, or for a peer with one a worker of 10 in the app's
// process) and a warmed-up app client, then `count` tasks enqueued in one enqueueMany, each delayed by a delay drawn uniformly from minMs to maxMs,
// and no cleaner running: for each task, its claim time minus its run_at, both on the database's clock.

import { sleep, wallMs } from "../clock.js";
import type { Peer, Producer, RunTarget } from "../peers/peer.js";
import { percentile } from "../stats.js";
import { latencyWorkers } from "./latency.js";

export interface LatenessResult {
  count: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** Tasks whose claim time was reported. */
  samples: number;
  /** Tasks whose handler start was never reported. */
  missing: number;
  /** Claim time minus run_at, database clock, in ms. */
  p50: number;
  p99: number;
  max: number;
  /** The earliest claim against its run_at: below 0 would be a task started early. */
  min: number;
  /** Where the worker ran: "worker process" or "app's process". */
  worker: string;
}

const IDLE_MS = 500;

export async function lateness(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  options: { count: number; minDelayMs: number; maxDelayMs: number; timeoutMs: number },
): Promise<LatenessResult> {
  if (!producer.delayedAdd) throw new Error(`${peer.name} cannot enqueue delayed tasks in this benchmark`);
  const inProcess = peer.startInProcess !== undefined;
  const workers = await latencyWorkers(peer, target, { timeoutMs: options.timeoutMs, inProcess });
  try {
    const crashed = workers.crashed();
    await Promise.race([workers.start(), crashed]);
    // One due task first, as an app's client has served before: its first statement readies it, and a transaction's
    // start (PostgreSQL's now(), which run_at counts from) would otherwise be that long before its insert.
    await producer.transaction(-1, true);
    while ((await producer.remaining()) > 0) await sleep(20);
    await sleep(IDLE_MS);
    const { count, minDelayMs, maxDelayMs } = options;
    const delays = Array.from({ length: count }, () => Math.round(minDelayMs + Math.random() * (maxDelayMs - minDelayMs)));
    const runAts = await Promise.race([producer.delayedAdd(delays), crashed]);
    const deadline = wallMs() + maxDelayMs + options.timeoutMs;
    while ((await producer.remaining()) > 0) {
      if (wallMs() > deadline) throw new Error(`${peer.name}: delayed tasks still unfinished ${options.timeoutMs} ms after the last was due`);
      await sleep(50);
    }
    const claims = await workers.stop();
    const measured = claims.filter(([n]) => n >= 0);
    const late = measured.filter(([, , claimedAt]) => Number.isFinite(claimedAt)).map(([n, , claimedAt]) => claimedAt - runAts[n]!);
    return {
      count,
      minDelayMs,
      maxDelayMs,
      samples: late.length,
      missing: count - measured.length,
      p50: percentile(late, 50),
      p99: percentile(late, 99),
      max: Math.max(...late),
      min: Math.min(...late),
      worker: inProcess ? "app's process" : "worker process",
    };
  } catch (error) {
    workers.kill();
    throw error;
  }
}
