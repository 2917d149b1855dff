// The leader lock's timings, derived from the cleaner's interval: how often the leader proves it still holds the lock,
// how long a ping may take, and when an unreachable leader's lock frees itself for a follower.

import type { ElectionTiming } from "../store/leader-lock.js";

/** Derives the timings from the cleaner's interval. */
export function electionTiming(intervalMs: number): ElectionTiming {
  const answerTimeoutMs = Math.max(2000, 3 * intervalMs);
  return {
    heartbeatMs: intervalMs,
    answerTimeoutMs,
    serverIdleTimeoutMs: Math.max(5000, 2 * (intervalMs + answerTimeoutMs), 10 * intervalMs),
  };
}
