// The scaling signal as gauges of the dashboard's /metrics, read at scrape time with the dashboard's scalingSignal
// options: arrivals and completions a second, backlog, mean run time and recommended workers per queue. A value the
// signal cannot know (null) has no sample: the series is absent for that queue rather than a wrong 0.

import { METRIC_PREFIX } from "../metrics/task-metrics.js";
import type { MetricFamily, Sample } from "../metrics/exposition.js";
import { queueSignals, type QueueSignal } from "../scaler/queue-signals.js";
import type { DashboardContext } from "./dashboard-context.js";

export async function signalGauges(context: DashboardContext): Promise<MetricFamily[]> {
  const signals = await queueSignals(context.store, context.settings.scalingSignal);
  const gauge = (name: string, help: string, value: (signal: QueueSignal) => number | null): MetricFamily => ({
    name: `${METRIC_PREFIX}${name}`,
    help,
    type: "gauge",
    samples: signals.flatMap((signal): Sample[] => {
      const known = value(signal);
      return known === null ? [] : [{ labels: { queue: signal.queue }, value: known }];
    }),
  });
  return [
    gauge("queue_arrival_rate", "Tasks enqueued per second over the scaling signal's window.", (signal) => signal.arrivalRate),
    gauge("queue_completion_rate", "Tasks succeeded per second over the scaling signal's window (kept or deleted on success).", (signal) => signal.completionRate),
    gauge("queue_backlog", "Tasks due and waiting for a worker, as the scaling signal read them.", (signal) => signal.backlog),
    gauge("queue_mean_processing_seconds", "Mean run time of a succeeded task's handler over the signal's processing window.", (signal) => signal.meanProcessingSeconds),
    gauge(
      "queue_recommended_workers",
      "Workers the scaling signal recommends for the queue (Little's law with headroom, plus draining the backlog).",
      (signal) => signal.recommendedWorkers,
    ),
  ];
}
