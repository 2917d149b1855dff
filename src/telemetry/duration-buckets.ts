// The upper bounds of every duration histogram, in seconds: the OpenTelemetry metrics' advice and the Prometheus
// histograms' buckets alike, so that both show the same distribution.

/** From 5 ms to 10 min (the conventions' defaults stop at 10 s; a task may run for minutes). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300, 600];
