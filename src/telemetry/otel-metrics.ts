// The metrics listener: turns task events into OpenTelemetry instruments of the global meter provider. Instruments are
// made again when the app registers another provider, since the API's meter provider is not a proxy.

import { ATTR, MESSAGING_SYSTEM, METRIC, SCOPE_NAME } from "./attributes.js";
import { DURATION_BUCKETS_SECONDS } from "./duration-buckets.js";
import type { OtelApi } from "./otel-api.js";
import type { RunEvent, RunOutcome, TelemetryListener } from "./telemetry-events.js";

type Counter = OtelApi.Counter;
type Histogram = OtelApi.Histogram;

interface Instruments {
  provider: OtelApi.MeterProvider;
  sent: Counter;
  consumed: Counter;
  processDuration: Histogram;
  waitDuration: Histogram;
  failures: Counter;
  dead: Counter;
  leaseRecoveries: Counter;
  republished: Counter;
}

export function otelMetrics(api: typeof OtelApi): TelemetryListener {
  const noopMeter = api.createNoopMeter();
  let made: Instruments | { provider: OtelApi.MeterProvider; noop: true } | undefined;
  /** The instruments of the registered meter provider; undefined while none is (the API's no-op meter records nothing). */
  const instruments = (): Instruments | undefined => {
    const provider = api.metrics.getMeterProvider();
    if (made?.provider === provider) return "noop" in made ? undefined : made;
    const meter = provider.getMeter(SCOPE_NAME);
    if (meter === noopMeter) {
      made = { provider, noop: true };
      return undefined;
    }
    const seconds = { unit: "s", advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_SECONDS] } };
    made = {
      provider,
      sent: meter.createCounter(METRIC.sent, { unit: "{message}", description: "Tasks enqueued (committed new rows)." }),
      consumed: meter.createCounter(METRIC.consumed, { unit: "{message}", description: "Runs of tasks that ended (any outcome but released)." }),
      processDuration: meter.createHistogram(METRIC.processDuration, { ...seconds, description: "Duration of a run, start to outcome written." }),
      waitDuration: meter.createHistogram(METRIC.waitDuration, { ...seconds, description: "Time from a task becoming due to its run's start." }),
      failures: meter.createCounter(METRIC.failures, { unit: "{run}", description: "Failed runs (retried or dead)." }),
      dead: meter.createCounter(METRIC.dead, { unit: "{task}", description: "Tasks that became dead after a run." }),
      leaseRecoveries: meter.createCounter(METRIC.leaseRecoveries, { unit: "{task}", description: "Expired leases the cleaner recovered." }),
      republished: meter.createCounter(METRIC.republished, { unit: "{message}", description: "Wake-ups the cleaner re-published." }),
    };
    return made;
  };
  const runAttributes = (event: RunEvent, operation: string) => ({
    [ATTR.system]: MESSAGING_SYSTEM,
    [ATTR.operationName]: operation,
    [ATTR.destination]: event.queue,
    [ATTR.taskName]: event.taskName,
    [ATTR.dialect]: event.dialect,
    [ATTR.transport]: event.transport,
  });
  return {
    active: () => instruments() !== undefined,
    tasksSent(event) {
      const all = instruments();
      if (!all) return;
      const attributes = { [ATTR.system]: MESSAGING_SYSTEM, [ATTR.operationName]: "send", [ATTR.destination]: event.queue, [ATTR.dialect]: event.dialect };
      all.sent.add(event.count, attributes);
    },
    taskStarted(event, waitMs) {
      instruments()?.waitDuration.record(Math.max(0, waitMs) / 1000, runAttributes(event, "process"));
    },
    taskEnded(event: RunEvent, outcome: RunOutcome, durationMs: number, failure: string | undefined) {
      if (outcome === "released") return;
      const all = instruments();
      if (!all) return;
      const attributes: Record<string, string> = runAttributes(event, "process");
      if (failure !== undefined) attributes[ATTR.errorType] = failure;
      else if (outcome === "lost") attributes[ATTR.errorType] = "TaskLeaseLostError";
      all.consumed.add(1, attributes);
      all.processDuration.record(durationMs / 1000, attributes);
      if (outcome === "retry" || outcome === "dead") all.failures.add(1, { ...attributes, [ATTR.outcome]: outcome });
      if (outcome === "dead") all.dead.add(1, attributes);
    },
    leasesRecovered(event) {
      const all = instruments();
      if (!all) return;
      const { leaseRecoveries } = all;
      const base = { [ATTR.system]: MESSAGING_SYSTEM, [ATTR.destination]: event.queue };
      if (event.retried > 0) leaseRecoveries.add(event.retried, { ...base, [ATTR.outcome]: "retry" });
      if (event.dead > 0) leaseRecoveries.add(event.dead, { ...base, [ATTR.outcome]: "dead" });
    },
    wakeupsRepublished(event) {
      instruments()?.republished.add(event.count, { [ATTR.system]: MESSAGING_SYSTEM });
    },
  };
}
