// The shape of a run's measurements, and the table rows derived from them: one line per figure of the benchmark,
// each with how to read it (higher or lower is better) so ratios and targets can be judged.

import type { PeerName } from "./config.js";
import type { BulkAddResult } from "./scenarios/bulk-add.js";
import type { BacklogResult } from "./scenarios/backlog.js";
import type { DrainResult } from "./scenarios/drain.js";
import type { EnqueueTransactionResult } from "./scenarios/enqueue-transaction.js";
import type { LatencyResult } from "./scenarios/latency.js";
import type { LatenessResult } from "./scenarios/lateness.js";

export interface PeerResults {
  enqueue?: { c1: EnqueueTransactionResult; c10: EnqueueTransactionResult };
  bulk?: BulkAddResult;
  /** The median run of each layout (by tasks per second). */
  drain?: { "1x10": DrainResult; "2x5": DrainResult };
  /** Every run of each layout. */
  drainRuns?: Partial<Record<"1x10" | "2x5", DrainResult[]>>;
  latency?: LatencyResult;
  /** Drains of one queue without limits and with high ones (see scenarios/queue-controls.ts): every run of each. */
  controlsRuns?: Partial<Record<"unlimited" | "limited", DrainResult[]>>;
  /** Drains 1 × 10 of a backlog enqueued in one transaction (bulk) and by one-task transactions (singly): every run of each. */
  backlogRuns?: Partial<Record<"bulk" | "singly", BacklogResult[]>>;
  /** Drains 1 × 10 with the worker's deleteOnSuccess off (keep) and on (delete): every run of each. */
  retentionRuns?: Partial<Record<"keep" | "delete", DrainResult[]>>;
  /** The same with the worker inside the app's process (peers with an in-process worker). */
  latencyInProcess?: LatencyResult;
  /** Tasks delayed 0.2–5 s: claim time minus run_at. */
  lateness?: LatenessResult;
}

export type Results = Partial<Record<PeerName, PeerResults>>;

export interface Row {
  key: string;
  label: string;
  unit: string;
  better: "higher" | "lower";
  value(results: PeerResults): number | undefined;
}

export const ROWS: Row[] = [
  { key: "enqueue.c1.tps", label: "1. tx/s, business row + enqueue, concurrency 1", unit: "tx/s", better: "higher", value: (r) => r.enqueue?.c1.withEnqueue },
  { key: "enqueue.c1.ratio", label: "1. same ÷ without the enqueue, concurrency 1", unit: "%", better: "higher", value: (r) => pct(r.enqueue?.c1.ratio) },
  { key: "enqueue.c10.tps", label: "1. tx/s, business row + enqueue, concurrency 10", unit: "tx/s", better: "higher", value: (r) => r.enqueue?.c10.withEnqueue },
  { key: "enqueue.c10.ratio", label: "1. same ÷ without the enqueue, concurrency 10", unit: "%", better: "higher", value: (r) => pct(r.enqueue?.c10.ratio) },
  { key: "bulk.tps", label: "2. bulk add of 20,000 in one transaction", unit: "tasks/s", better: "higher", value: (r) => r.bulk?.tasksPerSecond },
  { key: "drain.1x10.tps", label: "3. drain 20,000, 1 process × 10 (median run)", unit: "tasks/s", better: "higher", value: (r) => r.drain?.["1x10"].tasksPerSecond },
  { key: "drain.2x5.tps", label: "3. drain 20,000, 2 processes × 5 (median run)", unit: "tasks/s", better: "higher", value: (r) => r.drain?.["2x5"].tasksPerSecond },
  {
    key: "cpu.1x10.workers",
    label: "3. CPU per 1,000 tasks, drain 1 × 10: worker processes (median run)",
    unit: "ms",
    better: "lower",
    value: (r) => r.drain?.["1x10"].workerCpuMsPer1000,
  },
  {
    key: "cpu.1x10.machine",
    label: "3. CPU per 1,000 tasks, drain 1 × 10: whole machine (median run)",
    unit: "ms",
    better: "lower",
    value: (r) => r.drain?.["1x10"].machineCpuMsPer1000,
  },
  {
    key: "cpu.2x5.workers",
    label: "3. CPU per 1,000 tasks, drain 2 × 5: worker processes (median run)",
    unit: "ms",
    better: "lower",
    value: (r) => r.drain?.["2x5"].workerCpuMsPer1000,
  },
  {
    key: "cpu.2x5.machine",
    label: "3. CPU per 1,000 tasks, drain 2 × 5: whole machine (median run)",
    unit: "ms",
    better: "lower",
    value: (r) => r.drain?.["2x5"].machineCpuMsPer1000,
  },
  { key: "latency.p50", label: "4. commit → handler start at 200/s, p50", unit: "ms", better: "lower", value: (r) => r.latency?.p50 },
  { key: "latency.p90", label: "4. commit → handler start at 200/s, p90", unit: "ms", better: "lower", value: (r) => r.latency?.p90 },
  { key: "latency.p99", label: "4. commit → handler start at 200/s, p99", unit: "ms", better: "lower", value: (r) => r.latency?.p99 },
  { key: "latency.max", label: "4. commit → handler start at 200/s, max", unit: "ms", better: "lower", value: (r) => r.latency?.max },
  { key: "latency.inProcess.p50", label: "4. same, worker in the app's process, p50", unit: "ms", better: "lower", value: (r) => r.latencyInProcess?.p50 },
  { key: "latency.inProcess.p99", label: "4. same, worker in the app's process, p99", unit: "ms", better: "lower", value: (r) => r.latencyInProcess?.p99 },
  { key: "latency.inProcess.max", label: "4. same, worker in the app's process, max", unit: "ms", better: "lower", value: (r) => r.latencyInProcess?.max },
  { key: "latency.tx.p50", label: "4. the enqueuing transaction's own duration at 200/s, p50", unit: "ms", better: "lower", value: (r) => r.latency?.transactionMs?.p50 },
  { key: "latency.tx.p99", label: "4. the enqueuing transaction's own duration at 200/s, p99", unit: "ms", better: "lower", value: (r) => r.latency?.transactionMs?.p99 },
  { key: "rss.1x10", label: "5. worker peak RSS, drain 1 × 10 (highest run)", unit: "MB", better: "lower", value: (r) => peakRss(r, "1x10") },
  { key: "rss.2x5", label: "5. worker peak RSS, drain 2 × 5 (highest process and run)", unit: "MB", better: "lower", value: (r) => peakRss(r, "2x5") },
  { key: "lateness.p50", label: "6. delayed 0.2–5 s, no cleaner: claim − run_at (database clock), p50", unit: "ms", better: "lower", value: (r) => r.lateness?.p50 },
  { key: "lateness.p99", label: "6. same, p99", unit: "ms", better: "lower", value: (r) => r.lateness?.p99 },
  { key: "lateness.max", label: "6. same, max", unit: "ms", better: "lower", value: (r) => r.lateness?.max },
  {
    key: "controls.unlimited.tps",
    label: "7. drain 2 × 5, the queue unlimited (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => controlsMedian(r, "unlimited"),
  },
  {
    key: "controls.limited.tps",
    label: "7. drain 2 × 5, the same queue with concurrency 1,000 and 1,000,000 starts/s (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => controlsMedian(r, "limited"),
  },
  {
    key: "controls.ratio",
    label: "7. limited ÷ unlimited (medians)",
    unit: "%",
    better: "higher",
    value: (r) => {
      const limited = controlsMedian(r, "limited");
      const unlimited = controlsMedian(r, "unlimited");
      return limited === undefined || !unlimited ? undefined : (limited / unlimited) * 100;
    },
  },
  {
    key: "backlog.bulk.tps",
    label: "8. drain 1 × 10 of a backlog enqueued in one transaction (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => median(r.backlogRuns?.bulk),
  },
  {
    key: "backlog.singly.tps",
    label: "8. drain 1 × 10 of a backlog of one-task transactions (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => median(r.backlogRuns?.singly),
  },
  {
    key: "backlog.ratio",
    label: "8. one-task transactions ÷ one transaction (medians)",
    unit: "%",
    better: "higher",
    value: (r) => percentOf(median(r.backlogRuns?.singly), median(r.backlogRuns?.bulk)),
  },
  {
    key: "retention.keep.tps",
    label: "9. drain 1 × 10, succeeded rows kept (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => median(r.retentionRuns?.keep),
  },
  {
    key: "retention.delete.tps",
    label: "9. drain 1 × 10, deleteOnSuccess (median run)",
    unit: "tasks/s",
    better: "higher",
    value: (r) => median(r.retentionRuns?.delete),
  },
  {
    key: "retention.ratio",
    label: "9. deleteOnSuccess ÷ rows kept (medians)",
    unit: "%",
    better: "higher",
    value: (r) => percentOf(median(r.retentionRuns?.delete), median(r.retentionRuns?.keep)),
  },
];

/** The median run's tasks per second (the lower middle of an even count). */
function median(runs: readonly DrainResult[] | undefined): number | undefined {
  if (!runs || runs.length === 0) return undefined;
  return [...runs].sort((a, b) => a.tasksPerSecond - b.tasksPerSecond)[Math.floor((runs.length - 1) / 2)]!.tasksPerSecond;
}

function percentOf(part: number | undefined, whole: number | undefined): number | undefined {
  return part === undefined || !whole ? undefined : (part / whole) * 100;
}

function controlsMedian(results: PeerResults, kind: "unlimited" | "limited"): number | undefined {
  const runs = results.controlsRuns?.[kind];
  if (!runs || runs.length === 0) return undefined;
  return [...runs].sort((a, b) => a.tasksPerSecond - b.tasksPerSecond)[Math.floor((runs.length - 1) / 2)]!.tasksPerSecond;
}

function peakRss(results: PeerResults, layout: "1x10" | "2x5"): number | undefined {
  const runs = results.drainRuns?.[layout];
  return runs && runs.length > 0 ? Math.max(...runs.map((run) => run.peakRssMb)) : undefined;
}

function pct(ratio: number | undefined): number | undefined {
  return ratio === undefined ? undefined : ratio * 100;
}

/** ours ÷ peer for a row, when both were measured. */
export function ratio(row: Row, results: Results, peer: PeerName): number | undefined {
  const ours = results.ours && row.value(results.ours);
  const theirs = results[peer] && row.value(results[peer]);
  if (ours === undefined || theirs === undefined || theirs === 0) return undefined;
  return ours / theirs;
}
