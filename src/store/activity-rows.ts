// What every dialect's queueActivity unit shares: the id bound that keeps the count of arrivals on the primary key, and
// the reading of its rows (numbers as the drivers return them: numbers, strings or bigints).

import { TALLY_SLOT_SECONDS, type ActivityWindows, type QueueActivity } from "./tallies.js";
import { uuidv7AtTime } from "../uuid.js";

/** How far an enqueuing process's clock may run behind the database's and its tasks still count as arrivals. */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * The lowest task id the count of arrivals reads: task ids are UUIDv7, made from the enqueuing process's clock, so
 * every task enqueued within the windows has a larger id unless that clock ran more than 10 minutes behind.
 */
export function activityIdBound(windows: ActivityWindows): string {
  const back = Math.max(windows.rateSeconds, windows.processingSeconds) + TALLY_SLOT_SECONDS;
  return uuidv7AtTime(Date.now() - back * 1000 - CLOCK_SKEW_MS);
}

/** One queue's row of a queueActivity unit. */
export interface ActivityRow {
  queue: string;
  rate_seconds: unknown;
  processing_seconds: unknown;
  arrived: unknown;
  succeeded: unknown;
  deleted: unknown;
  timed: unknown;
  run_ms: unknown;
}

export function toActivity(row: ActivityRow): QueueActivity {
  return {
    queue: row.queue,
    rateSeconds: Number(row.rate_seconds),
    arrived: Number(row.arrived) + Number(row.deleted),
    succeeded: Number(row.succeeded),
    processingSeconds: Number(row.processing_seconds),
    timed: Number(row.timed),
    runMs: Number(row.run_ms),
  };
}
