// The targets of issue 5, judged against one run: each says which row it reads, what it demands and whether the
// run met it. Ratios are ours ÷ peer; for latency and memory lower is better, so there the ratio must be ≤ the bound.

import { ratio, ROWS, type Results } from "./results.js";

export interface TargetVerdict {
  row: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}

const row = (key: string) => ROWS.find((r) => r.key === key)!;
const fmt = (value: number | undefined, digits = 2) => (value === undefined ? "n/a" : value.toFixed(digits));

export function judgeTargets(results: Results): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const atLeast = (key: string, peer: "graphile-worker" | "pg-boss", bound: number) => {
    const r = ratio(row(key), results, peer);
    verdicts.push({ row: key, target: `≥ ${bound}× ${peer}`, measured: `${fmt(r)}×`, met: r === undefined ? undefined : r >= bound });
  };
  const atMost = (key: string, peer: "graphile-worker" | "pg-boss", bound: number) => {
    const r = ratio(row(key), results, peer);
    verdicts.push({ row: key, target: `≤ ${bound}× ${peer}`, measured: `${fmt(r)}×`, met: r === undefined ? undefined : r <= bound });
  };
  const absolute = (key: string, target: string, test: (value: number) => boolean, unit: string) => {
    const value = results.ours && row(key).value(results.ours);
    verdicts.push({ row: key, target, measured: `${fmt(value, 1)} ${unit}`, met: value === undefined ? undefined : test(value) });
  };
  atLeast("drain.1x10.tps", "graphile-worker", 1.2);
  atLeast("drain.1x10.tps", "pg-boss", 4);
  atMost("latency.p50", "graphile-worker", 1);
  atMost("latency.p99", "graphile-worker", 1);
  absolute("enqueue.c1.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  absolute("enqueue.c10.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  atLeast("bulk.tps", "graphile-worker", 1);
  absolute("rss.1x10", "< 150 MB", (v) => v < 150, "MB");
  absolute("rss.2x5", "< 150 MB", (v) => v < 150, "MB");
  return verdicts;
}
