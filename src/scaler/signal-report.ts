// The scaling signal of every active queue with the options it was read with, as status and the dashboard show it; a
// database without the tally table gets the reason instead of an error.

import { queueSignals, type QueueSignal } from "./queue-signals.js";
import { resolveSignalOptions, type QueueSignalOptions } from "./scaler-options.js";
import type { Store } from "../store/store.js";
import { StoreProblemError } from "../store/store-problem.js";

/** The signal of every active queue with the options it was read with, or why it could not be read. */
export interface SignalReport {
  windowSeconds: number;
  headroom: number;
  drainSeconds: number;
  queues: QueueSignal[];
  /** Why there is no signal (the tally table is missing); absent when it was read. */
  unavailable?: string;
}

/** Reads the signal; a missing tally table is reported, not thrown. */
export async function signalReport(store: Store, options: QueueSignalOptions): Promise<SignalReport> {
  const resolved = resolveSignalOptions(options);
  const base = { windowSeconds: resolved.windowSeconds, headroom: resolved.headroom, drainSeconds: resolved.drainSeconds };
  try {
    return { ...base, queues: await queueSignals(store, options) };
  } catch (error) {
    if (!(error instanceof StoreProblemError) || error.problem.kind !== "missing-table") throw error;
    return { ...base, queues: [], unavailable: error.message };
  }
}
