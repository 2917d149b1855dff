// The scaling signal's options, checked once: the windows it reads, and the formula's headroom, drain target and
// concurrency per worker.

import { TaskQueueConfigError } from "../errors.js";
import { TALLY_KEEP_SECONDS, TALLY_SLOT_SECONDS } from "../store/tallies.js";

/** How the signal is read and computed. Every option has a default. */
export interface QueueSignalOptions {
  /**
   * Seconds back from the database's now over which arrivals and completions are counted. Default 60. Shorter follows
   * a change sooner and jumps more; at most 900 (the tallies are kept 15 minutes).
   */
  windowSeconds?: number;
  /** Seconds back over which the mean processing time is taken. Default 300 (at most 900). */
  processingWindowSeconds?: number;
  /** Factor over the workers that exactly keep up with the arrivals. Default 1.2: a worker busy 83% of the time at most. */
  headroom?: number;
  /** Seconds within which the recommended workers should drain the current backlog. Default 60. */
  drainSeconds?: number;
  /**
   * Tasks one worker runs at once: a number for every queue, or per queue (`{ reports: 2 }`, with `default` for the
   * others). Default 10, the worker's own default `concurrency`.
   */
  concurrency?: number | Readonly<Record<string, number>>;
}

/** The options with their defaults. */
export interface ResolvedSignalOptions {
  windowSeconds: number;
  processingWindowSeconds: number;
  headroom: number;
  drainSeconds: number;
  concurrencyOf(queue: string): number;
}

export const DEFAULT_SIGNAL_OPTIONS = { windowSeconds: 60, processingWindowSeconds: 300, headroom: 1.2, drainSeconds: 60, concurrency: 10 } as const;

export function resolveSignalOptions(options: QueueSignalOptions = {}): ResolvedSignalOptions {
  const windowSeconds = numberIn("windowSeconds", options.windowSeconds, DEFAULT_SIGNAL_OPTIONS.windowSeconds, TALLY_SLOT_SECONDS, TALLY_KEEP_SECONDS);
  const processingWindowSeconds = numberIn(
    "processingWindowSeconds",
    options.processingWindowSeconds,
    DEFAULT_SIGNAL_OPTIONS.processingWindowSeconds,
    TALLY_SLOT_SECONDS,
    TALLY_KEEP_SECONDS,
  );
  const headroom = numberIn("headroom", options.headroom, DEFAULT_SIGNAL_OPTIONS.headroom, 1, 10);
  const drainSeconds = numberIn("drainSeconds", options.drainSeconds, DEFAULT_SIGNAL_OPTIONS.drainSeconds, 1, 86_400);
  const concurrency = options.concurrency ?? DEFAULT_SIGNAL_OPTIONS.concurrency;
  if (typeof concurrency === "number") {
    const every = wholeNumber("concurrency", concurrency);
    return { windowSeconds, processingWindowSeconds, headroom, drainSeconds, concurrencyOf: () => every };
  }
  if (typeof concurrency !== "object" || concurrency === null || Array.isArray(concurrency)) {
    throw new TaskQueueConfigError("concurrency", `must be a number or an object of numbers by queue, got ${JSON.stringify(concurrency)}.`);
  }
  const byQueue = new Map(Object.entries(concurrency).map(([queue, value]) => [queue, wholeNumber(`concurrency.${queue}`, value)]));
  const fallback = byQueue.get("default") ?? DEFAULT_SIGNAL_OPTIONS.concurrency;
  return { windowSeconds, processingWindowSeconds, headroom, drainSeconds, concurrencyOf: (queue) => byQueue.get(queue) ?? fallback };
}

function numberIn(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new TaskQueueConfigError(option, `must be a number from ${min} to ${max}, got ${JSON.stringify(value)}.`);
  }
  return value;
}

function wholeNumber(option: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > 10_000) {
    throw new TaskQueueConfigError(option, `must be an integer from 1 to 10000 (a worker's concurrency), got ${JSON.stringify(value)}.`);
  }
  return value;
}
