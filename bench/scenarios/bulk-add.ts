// Scenario 2: `count` tasks added in one transaction with each peer's bulk API; the best of two runs (after a
// small warm-up), timed from the call to its return (for ours: the commit; wake-ups publish after it).

import { wallMs } from "../clock.js";
import type { Producer } from "../peers/peer.js";

export interface BulkAddResult {
  count: number;
  /** Tasks per second of the faster run. */
  tasksPerSecond: number;
  /** Both runs, in ms. */
  runsMs: number[];
}

export async function bulkAdd(producer: Producer, count: number): Promise<BulkAddResult> {
  await producer.bulkAdd(Math.min(1000, count));
  await producer.flush();
  const runsMs: number[] = [];
  for (let run = 0; run < 2; run++) {
    const started = wallMs();
    await producer.bulkAdd(count);
    runsMs.push(wallMs() - started);
    await producer.flush();
  }
  return { count, tasksPerSecond: (count * 1000) / Math.min(...runsMs), runsMs };
}
