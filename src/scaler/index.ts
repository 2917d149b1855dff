// The scaling signal: per queue, how fast tasks arrive and complete, what waits, and how many workers that calls for.

export { queueSignals, type QueueSignal } from "./queue-signals.js";
export { recommendWorkers, type WorkerInputs, type WorkerRecommendation } from "./recommend-workers.js";
export { DEFAULT_SIGNAL_OPTIONS, type QueueSignalOptions } from "./scaler-options.js";
