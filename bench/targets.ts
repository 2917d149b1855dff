// The targets of issues 5 and 15 (ours on PostgreSQL; NOTIFY latency) and of the dialect issues (ours on SQLite, issue
// 12; ours on MySQL, issue 13), judged against one run: each says which row it reads, what it demands and whether the
// run met it. Ratios are ours ÷ peer (for another dialect: it ÷ ours); for latency and memory lower is better, so
// there the ratio must be ≤ the bound.

import type { PeerName } from "./config.js";
import { ratio, ROWS, type Results } from "./results.js";

export interface TargetVerdict {
  row: string;
  /** Whose figure it judges. */
  peer: PeerName;
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
    verdicts.push({ row: key, peer: "ours", target: `≥ ${bound}× ${peer}`, measured: `${fmt(r)}×`, met: r === undefined ? undefined : r >= bound });
  };
  const atMost = (key: string, peer: "graphile-worker" | "pg-boss", bound: number) => {
    const r = ratio(row(key), results, peer);
    verdicts.push({ row: key, peer: "ours", target: `≤ ${bound}× ${peer}`, measured: `${fmt(r)}×`, met: r === undefined ? undefined : r <= bound });
  };
  const absolute = (key: string, target: string, test: (value: number) => boolean, unit: string, peer: PeerName = "ours") => {
    const value = results[peer] && row(key).value(results[peer]!);
    if (peer !== "ours" && results[peer] === undefined) return; // that dialect was not measured in this run
    verdicts.push({ row: key, peer, target, measured: `${fmt(value, 1)} ${unit}`, met: value === undefined ? undefined : test(value) });
  };
  /** `peer` ÷ ours (PostgreSQL) ≥ `bound` on a row; judged only when both were measured in this run. */
  const againstOurs = (key: string, peer: PeerName, bound: number, issue: string) => {
    const mine = results[peer] && row(key).value(results[peer]!);
    const base = results.ours && row(key).value(results.ours);
    if (mine === undefined || base === undefined || base === 0) return;
    const r = mine / base;
    verdicts.push({ row: key, peer, target: `≥ ${bound}× ours (PostgreSQL) in the same run (${issue})`, measured: `${fmt(r)}×`, met: r >= bound });
  };
  /** `peer`'s figure ÷ graphile-worker's ≤ `bound` (lower is better); judged only when both ran. */
  const peerAtMost = (key: string, peer: PeerName, bound: number, issue: string) => {
    const mine = results[peer] && row(key).value(results[peer]!);
    const theirs = results["graphile-worker"] && row(key).value(results["graphile-worker"]);
    if (mine === undefined || theirs === undefined || theirs === 0) return;
    const r = mine / theirs;
    verdicts.push({ row: key, peer, target: `≤ 1× graphile-worker (${issue})`, measured: `${fmt(r)}×`, met: r <= bound });
  };
  atLeast("drain.1x10.tps", "graphile-worker", 1.2);
  atLeast("drain.2x5.tps", "graphile-worker", 1.2);
  atLeast("drain.1x10.tps", "pg-boss", 4);
  // Issue 15: with NOTIFY, latency at or below graphile-worker's in the same run.
  peerAtMost("latency.p50", "ours-notify", 1, "issue 15");
  peerAtMost("latency.p99", "ours-notify", 1, "issue 15");
  atMost("latency.p50", "graphile-worker", 1);
  atMost("latency.p99", "graphile-worker", 1);
  absolute("enqueue.c1.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  absolute("enqueue.c10.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  atLeast("bulk.tps", "graphile-worker", 1);
  absolute("rss.1x10", "< 150 MB", (v) => v < 150, "MB");
  absolute("rss.2x5", "< 150 MB", (v) => v < 150, "MB");
  // Issue 12: SQLite with the default options, one worker process.
  absolute("drain.1x10.tps", "≥ 10,000 tasks/s (issue 12)", (v) => v >= 10_000, "tasks/s", "ours-sqlite");
  // Issue 13: MySQL/MariaDB with the default options drains at least half as fast as ours on PostgreSQL, same run.
  againstOurs("drain.1x10.tps", "ours-mysql", 0.5, "issue 13");
  againstOurs("drain.2x5.tps", "ours-mysql", 0.5, "issue 13");
  return verdicts;
}
