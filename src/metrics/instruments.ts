// Counters and histograms with fixed buckets, keyed by their label values, that hand their series to the exposition.
// Label names are fixed per instrument, so a series is identified by its values alone.

import type { HistogramSample, Labels, MetricFamily, Sample } from "./exposition.js";

type LabelValues<Names extends string> = Readonly<Record<Names, string>>;

function seriesKey(names: readonly string[], labels: Labels): string {
  return names.map((name) => labels[name] ?? "").join("\u0000");
}

function pick<Names extends string>(names: readonly Names[], labels: LabelValues<Names>): Labels {
  return Object.fromEntries(names.map((name) => [name, labels[name]]));
}

/** A monotonic counter: add() only goes up; touch() makes a series show as 0 before its first increment. */
export class Counter<Names extends string = never> {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Names[],
  ) {}

  add(labels: LabelValues<Names>, amount = 1): void {
    if (!(amount >= 0)) return;
    this.entry(labels).value += amount;
  }

  touch(labels: LabelValues<Names>): void {
    this.entry(labels);
  }

  family(): MetricFamily {
    const samples: Sample[] = [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: "counter", samples };
  }

  private entry(labels: LabelValues<Names>): { labels: Labels; value: number } {
    const key = seriesKey(this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels: pick(this.labelNames, labels), value: 0 }));
    return entry;
  }
}

/** A histogram of fixed upper bounds (ascending); an observation lands in the first bound at or above it, else +Inf. */
export class Histogram<Names extends string = never> {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Names[],
    private readonly bounds: readonly number[],
  ) {}

  observe(labels: LabelValues<Names>, value: number): void {
    if (Number.isNaN(value)) return;
    const key = seriesKey(this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels: pick(this.labelNames, labels), counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0 }));
    const index = this.bounds.findIndex((bound) => value <= bound);
    entry.counts[index === -1 ? this.bounds.length : index]! += 1;
    entry.sum += value;
  }

  family(): MetricFamily {
    const samples: HistogramSample[] = [...this.series.values()].map(({ labels, counts, sum }) => ({ labels, bounds: this.bounds, counts, sum }));
    return { name: this.name, help: this.help, type: "histogram", samples };
  }
}
