// The benchmark's targets (ours on PostgreSQL against graphile-worker and pg-boss; NOTIFY latency; ours on SQLite and
// on MySQL/MariaDB; delays on time and queue controls on every setup), judged against one run: each says which row it reads, what it demands and whether the run met it. Ratios are ours ÷ peer (for another dialect: it ÷ ours); for latency and memory lower is better, so
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
  /** Ours ÷ `peer` on a row against `bound`: at least it for rates, at most it where lower is better. */
  const oursAgainst = (key: string, peer: "graphile-worker" | "pg-boss", op: "≥" | "≤", bound: number) => {
    const r = ratio(row(key), results, peer);
    const met = r === undefined ? undefined : op === "≥" ? r >= bound : r <= bound;
    verdicts.push({ row: key, peer: "ours", target: `${op} ${bound}× ${peer}`, measured: `${fmt(r)}×`, met });
  };
  const atLeast = (key: string, peer: "graphile-worker" | "pg-boss", bound: number) => oursAgainst(key, peer, "≥", bound);
  const atMost = (key: string, peer: "graphile-worker" | "pg-boss", bound: number) => oursAgainst(key, peer, "≤", bound);
  const absolute = (key: string, target: string, test: (value: number) => boolean, unit: string, peer: PeerName = "ours") => {
    const value = results[peer] && row(key).value(results[peer]);
    if (value === undefined) return; // that peer or scenario was not measured in this run
    verdicts.push({ row: key, peer, target, measured: `${fmt(value, 1)} ${unit}`, met: test(value) });
  };
  /** `peer`'s figure ÷ `over`'s on a row, judged by `met`; only when both were measured in this run. */
  const peerRatio = (key: string, peer: PeerName, over: PeerName, met: (r: number) => boolean, target: string) => {
    const mine = results[peer] && row(key).value(results[peer]);
    const theirs = results[over] && row(key).value(results[over]);
    if (mine === undefined || theirs === undefined || theirs === 0) return;
    const r = mine / theirs;
    verdicts.push({ row: key, peer, target, measured: `${fmt(r)}×`, met: met(r) });
  };
  /** `peer` ÷ ours (PostgreSQL) ≥ `bound`. */
  const againstOurs = (key: string, peer: PeerName, bound: number) => peerRatio(key, peer, "ours", (r) => r >= bound, `≥ ${bound}× ours (PostgreSQL) in the same run`);
  /** `peer` ÷ graphile-worker ≤ 1 (lower is better). */
  const peerAtMostGraphile = (key: string, peer: PeerName) => peerRatio(key, peer, "graphile-worker", (r) => r <= 1, "≤ 1× graphile-worker");
  /** `peer`'s figure ÷ graphile-worker's ≥ `bound` (rates). */
  const peerAtLeastGraphile = (key: string, peer: PeerName, bound: number) => peerRatio(key, peer, "graphile-worker", (r) => r >= bound, `≥ ${bound}× graphile-worker`);
  // Drains, RabbitMQ (ours) and NOTIFY (ours-notify): a bulk-enqueued backlog (1 × 10 and 2 × 5) and one built by
  // single enqueues (1 × 10), each at least 1.2× graphile-worker's in the same run.
  for (const key of ["drain.1x10.tps", "drain.2x5.tps", "backlog.singly.tps"]) {
    atLeast(key, "graphile-worker", 1.2);
    peerAtLeastGraphile(key, "ours-notify", 1.2);
  }
  atLeast("drain.1x10.tps", "pg-boss", 4);
  // A backlog of one-task transactions drains as fast as one transaction's, on every transport (within the runs' noise).
  for (const peer of ["ours", "ours-notify", "ours-sqlite", "ours-mysql"] as const) {
    absolute("backlog.ratio", "≥ 90 % of the bulk-enqueued backlog's drain", (v) => v >= 90, "%", peer);
  }
  // Commit → start: with NOTIFY at or below graphile-worker's; with RabbitMQ p50 within 1.2× (the broker hop), p99 shown.
  peerAtMostGraphile("latency.p50", "ours-notify");
  peerAtMostGraphile("latency.p99", "ours-notify");
  atMost("latency.p50", "graphile-worker", 1.2);
  // SQLite with the worker in another process, woken through its local socket.
  absolute("latency.p50", "≤ 1 ms", (v) => v <= 1, "ms", "ours-sqlite");
  absolute("latency.p99", "≤ 5 ms", (v) => v <= 5, "ms", "ours-sqlite");
  absolute("enqueue.c1.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  absolute("enqueue.c10.ratio", "≥ 85 % of the transaction without enqueue", (v) => v >= 85, "%");
  atLeast("bulk.tps", "graphile-worker", 1);
  absolute("rss.1x10", "< 150 MB", (v) => v < 150, "MB");
  absolute("rss.2x5", "< 150 MB", (v) => v < 150, "MB");
  // SQLite with the default options, one worker process.
  absolute("drain.1x10.tps", "≥ 10,000 tasks/s", (v) => v >= 10_000, "tasks/s", "ours-sqlite");
  // MySQL/MariaDB with the default options drains at least 0.6× as fast as ours on PostgreSQL, same run.
  againstOurs("drain.1x10.tps", "ours-mysql", 0.6);
  againstOurs("drain.2x5.tps", "ours-mysql", 0.6);
  // Delays on time and queue controls, on every setup that measures them.
  for (const peer of ["ours", "ours-notify", "ours-sqlite", "ours-mysql"] as const) {
    absolute("lateness.p99", "≤ 50 ms", (v) => v <= 50, "ms", peer);
    absolute("controls.ratio", "≥ 90 % of the same queue unlimited", (v) => v >= 90, "%", peer);
  }
  return verdicts;
}
