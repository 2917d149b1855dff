// The Prometheus text exposition format (version 0.0.4): metric families with their HELP and TYPE lines, label values
// escaped, histograms as cumulative buckets ending at +Inf with _sum and _count. Written here rather than taken from
// prom-client: see docs/observability.md, "Why no client library".

/** The content type Prometheus asks for and this text is. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

/** One value of a counter or a gauge. */
export interface Sample {
  labels: Labels;
  value: number;
}

/** One histogram series: counts per upper bound (not cumulative), their sum and the bounds themselves. */
export interface HistogramSample {
  labels: Labels;
  /** Upper bounds, ascending; +Inf is implied. */
  bounds: readonly number[];
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; counts[bounds.length]: above the last bound. */
  counts: readonly number[];
  sum: number;
}

export type MetricFamily =
  | { name: string; help: string; type: "counter" | "gauge"; samples: readonly Sample[] }
  | { name: string; help: string; type: "histogram"; samples: readonly HistogramSample[] };

/** The families as exposition text, each family once, in the order given. */
export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === "histogram") {
      for (const sample of family.samples) histogramLines(family.name, sample, lines);
    } else {
      for (const sample of family.samples) lines.push(`${family.name}${labelText(sample.labels)} ${numberText(sample.value)}`);
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function histogramLines(name: string, sample: HistogramSample, lines: string[]): void {
  let cumulative = 0;
  sample.bounds.forEach((bound, index) => {
    cumulative += sample.counts[index] ?? 0;
    lines.push(`${name}_bucket${labelText(sample.labels, numberText(bound))} ${cumulative}`);
  });
  cumulative += sample.counts[sample.bounds.length] ?? 0;
  lines.push(`${name}_bucket${labelText(sample.labels, "+Inf")} ${cumulative}`);
  lines.push(`${name}_sum${labelText(sample.labels)} ${numberText(sample.sum)}`);
  lines.push(`${name}_count${labelText(sample.labels)} ${cumulative}`);
}

function labelText(labels: Labels, le?: string): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabelValue(value)}"`);
  if (le !== undefined) pairs.push(`le="${le}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

/** A label value as the format writes it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
