// Turns a run into the printed markdown table (every figure of ours on PostgreSQL beside graphile-worker's and
// pg-boss's, with ours ÷ theirs, and ours on each other dialect measured) and the JSON written to bench/results/.

import { PEERS, type PeerName } from "./config.js";
import { ratio, ROWS, type Results, type Row } from "./results.js";
import { round } from "./stats.js";
import type { TargetVerdict } from "./targets.js";

function format(value: number | undefined, unit: string): string {
  if (value === undefined || Number.isNaN(value)) return "–";
  if (unit === "ms") return value.toFixed(2);
  if (unit === "%") return value.toFixed(1);
  if (unit === "MB") return value.toFixed(0);
  return Math.round(value).toLocaleString("en-US");
}

function formatRatio(value: number | undefined): string {
  return value === undefined ? "–" : `${value.toFixed(2)}×`;
}

/** The markdown table. Ratios are ours ÷ peer: above 1 is better for rates, below 1 for latency and memory. */
export function markdownTable(results: Results, verdicts: TargetVerdict[]): string {
  // The three PostgreSQL columns always (the ratios read them); another dialect's only when it was measured.
  const columns = PEERS.filter((peer) => peer === "ours" || peer === "graphile-worker" || peer === "pg-boss" || results[peer] !== undefined);
  const others = columns.slice(3);
  const lines = [
    `| Figure | Unit | ${columns.join(" | ")} | ours ÷ graphile-worker | ours ÷ pg-boss | Targets |`,
    `|---|---|${columns.map(() => "--:|").join("")}--:|--:|---|`,
  ];
  for (const row of ROWS) {
    const measured = (peer: PeerName) => results[peer] && row.value(results[peer]);
    if (others.length > 0 && columns.every((peer) => measured(peer) === undefined)) continue;
    const cells = columns.map((peer) => format(measured(peer), row.unit));
    const targets = verdicts
      .filter((v) => v.row === row.key)
      .map((v) => `${v.peer === "ours" ? "" : `${v.peer}: `}${v.target}: ${v.met === undefined ? "not measured" : v.met ? "**met**" : "**missed**"} (${v.measured})`)
      .join("; ");
    lines.push(
      `| ${row.label} | ${row.unit} | ${cells.join(" | ")} | ${formatRatio(ratio(row, results, "graphile-worker"))} | ` +
        `${formatRatio(ratio(row, results, "pg-boss"))} | ${targets} |`,
    );
  }
  return lines.join("\n");
}

/** One row of the JSON: every peer's value and ours ÷ each peer, rounded. */
function jsonRow(row: Row, results: Results) {
  const values: Partial<Record<PeerName, number>> = {};
  for (const peer of PEERS) {
    const value = results[peer] && row.value(results[peer]);
    if (value !== undefined) values[peer] = round(value, 4);
  }
  const of = (peer: PeerName) => {
    const r = ratio(row, results, peer);
    return r === undefined ? undefined : round(r, 3);
  };
  return { key: row.key, label: row.label, unit: row.unit, better: row.better, values, oursOver: { "graphile-worker": of("graphile-worker"), "pg-boss": of("pg-boss") } };
}

export function jsonReport(input: {
  machine: Record<string, unknown>;
  config: Record<string, unknown>;
  settings: Record<string, unknown>;
  results: Results;
  verdicts: TargetVerdict[];
  failures: Array<{ run: string; peer: string; error: string }>;
  startedAt: Date;
  durationS: number;
}) {
  return {
    generatedAt: new Date().toISOString(),
    startedAt: input.startedAt.toISOString(),
    durationS: round(input.durationS, 4),
    machine: input.machine,
    config: input.config,
    settings: input.settings,
    table: ROWS.map((row) => jsonRow(row, input.results)),
    targets: input.verdicts,
    failures: input.failures,
    raw: input.results,
  };
}
