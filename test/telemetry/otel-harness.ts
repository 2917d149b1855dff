// The OpenTelemetry SDK as an app registers it, with in-memory exporters: every span ended, and the metrics read on
// demand. Registered globally for one test file; reset() between cases, uninstall() at the end.

import { context, metrics, propagation, trace, type Attributes } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

class ReadOnDemand extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export class OtelHarness {
  readonly spans = new InMemorySpanExporter();
  private readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spans)] });
  private reader = new ReadOnDemand();
  private meterProvider = new MeterProvider({ readers: [this.reader] });

  install(): this {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(this.tracerProvider);
    metrics.setGlobalMeterProvider(this.meterProvider);
    return this;
  }

  /** Forgets the spans and starts the metrics from zero (a new meter provider, as an app could register). */
  async reset(): Promise<void> {
    this.spans.reset();
    await this.meterProvider.shutdown();
    this.reader = new ReadOnDemand();
    this.meterProvider = new MeterProvider({ readers: [this.reader] });
    metrics.disable();
    metrics.setGlobalMeterProvider(this.meterProvider);
  }

  async uninstall(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    context.disable();
    propagation.disable();
  }

  /** Ended spans named `name`, in the order they ended. */
  named(name: string): ReadableSpan[] {
    return this.spans.getFinishedSpans().filter((span) => span.name === name);
  }

  /** The data points of the metric `name`: attributes and value (a number, or a histogram's count and sum). */
  async points(name: string): Promise<Array<{ attributes: Attributes; value: number | { count: number; sum: number } }>> {
    const { resourceMetrics } = await this.reader.collect();
    const found = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).filter((metric) => metric.descriptor.name === name);
    return found.flatMap((metric) =>
      (metric.dataPoints as Array<DataPoint<number | Histogram>>).map((point) => ({
        attributes: point.attributes,
        value: typeof point.value === "number" ? point.value : { count: point.value.count, sum: point.value.sum ?? 0 },
      })),
    );
  }

  /** The sum of a counter's points whose attributes include `match`. */
  async total(name: string, match: Attributes = {}): Promise<number> {
    const points = await this.points(name);
    return points
      .filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value))
      .reduce((sum, point) => sum + (typeof point.value === "number" ? point.value : point.value.count), 0);
  }
}
