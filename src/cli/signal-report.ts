// The scaling signal as `task-runner status` shows it: per queue, arrivals and completions a second, the backlog, the
// mean processing time and the workers recommended, with what the recommendation assumed; or why it is unavailable.

import { DEFAULT_SIGNAL_OPTIONS, type QueueSignalOptions } from "../scaler/scaler-options.js";
import type { SignalReport } from "../scaler/signal-report.js";

/** The signal's options from status's flags (numbers as text) and the config's worker concurrency. */
export function signalOptions(flags: { window?: string; headroom?: string; drain?: string }, concurrency: number | undefined): QueueSignalOptions {
  const options: QueueSignalOptions = { concurrency: concurrency ?? DEFAULT_SIGNAL_OPTIONS.concurrency };
  if (flags.window !== undefined) options.windowSeconds = Number(flags.window);
  if (flags.headroom !== undefined) options.headroom = Number(flags.headroom);
  if (flags.drain !== undefined) options.drainSeconds = Number(flags.drain);
  return options;
}

export function renderSignal(report: SignalReport): string[] {
  const title = `Scaling signal (last ${report.windowSeconds} s; headroom ${report.headroom}, backlog drained within ${report.drainSeconds} s):`;
  if (report.unavailable) return ["", "Scaling signal: unavailable.", `  ${report.unavailable}`];
  if (report.queues.length === 0) return ["", `${title} no queue enqueued, completed or waits.`];
  const header = ["QUEUE", "ARRIVAL/S", "COMPLETION/S", "BACKLOG", "MEAN RUN", "CONCURRENCY", "WORKERS"];
  const body = report.queues.map((row) => [
    row.queue,
    rate(row.arrivalRate),
    rate(row.completionRate),
    String(row.backlog),
    row.meanProcessingSeconds === null ? "?" : `${(row.meanProcessingSeconds * 1000).toFixed(0)} ms`,
    String(row.concurrency),
    row.recommendedWorkers === null ? "?" : String(row.recommendedWorkers),
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((cells) => cells[column]!.length)));
  const lines = [header, ...body].map((cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
  const notes = report.queues.flatMap((row) => [
    ...(row.windowSeconds < report.windowSeconds ? [`  ${row.queue}: rates over the last ${row.windowSeconds.toFixed(1)} s only, since the tallies began.`] : []),
    ...(row.unknown ? [`  ${row.queue}: ? because ${row.unknown}.`] : []),
  ]);
  return ["", title, ...lines.map((line) => `  ${line}`), ...notes];
}

function rate(value: number | null): string {
  return value === null ? "?" : value.toFixed(2);
}
