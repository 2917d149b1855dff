// The dashboard's /metrics: asks each gauge source at scrape time, one collection at a time. Scrapes that come while
// one runs share it, and its text serves for a second after, so slow queries never pile up behind a busy scraper.

import { EXPOSITION_CONTENT_TYPE, formatExposition, type MetricFamily } from "../metrics/exposition.js";
import type { DashboardContext } from "./dashboard-context.js";
import { signalGauges } from "./signal-gauges.js";
import { storeGauges } from "./store-gauges.js";

/** A source of gauges, asked at every scrape (or at most once a second). */
export type GaugeSource = (context: DashboardContext) => Promise<MetricFamily[]>;

/** The sources /metrics asks, in the order their families appear. */
export const GAUGE_SOURCES: readonly GaugeSource[] = [storeGauges, signalGauges];

/** How long a collection's text answers later scrapes. */
export const METRICS_REUSE_MS = 1000;

export { EXPOSITION_CONTENT_TYPE };

export class DashboardMetrics {
  private inFlight: Promise<string> | undefined;
  private last: { text: string; at: number } | undefined;

  constructor(
    private readonly context: DashboardContext,
    private readonly sources: readonly GaugeSource[] = GAUGE_SOURCES,
  ) {}

  /** The exposition text: the last collection's when it is under METRICS_REUSE_MS old, else the one in flight or a new one. */
  text(): Promise<string> {
    if (this.last && performance.now() - this.last.at < METRICS_REUSE_MS) return Promise.resolve(this.last.text);
    this.inFlight ??= this.collect().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async collect(): Promise<string> {
    const families = (await Promise.all(this.sources.map((source) => source(this.context)))).flat();
    const text = formatExposition(families);
    this.last = { text, at: performance.now() };
    return text;
  }
}
