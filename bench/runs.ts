// The measurements of a run, each on its own fresh database: what each runs and where its result goes, plus the
// one-line summary the harness logs as it goes.

import type { BenchConfig } from "./config.js";
import type { Peer, Producer, RunTarget } from "./peers/peer.js";
import type { PeerResults } from "./results.js";
import { bulkAdd } from "./scenarios/bulk-add.js";
import { drain } from "./scenarios/drain.js";
import { enqueueTransaction } from "./scenarios/enqueue-transaction.js";
import { latency } from "./scenarios/latency.js";
import { lateness } from "./scenarios/lateness.js";
import { queueControlsDrain } from "./scenarios/queue-controls.js";
import { backlogDrain } from "./scenarios/backlog.js";
import { retentionDrain } from "./scenarios/retention.js";

/** One measurement on one fresh database: what it runs and where its result goes. */
export interface Run {
  name: string;
  scenario: BenchConfig["only"][number];
  /** Whether it measures `peer` (default: every peer). */
  applies?(peer: Peer): boolean;
  measure(peer: Peer, producer: Producer, target: RunTarget, into: PeerResults): Promise<string>;
}

export function runs(config: BenchConfig): Run[] {
  const timeoutMs = config.timeoutSeconds * 1000;
  const profileName = (peer: Peer, what: string) => (config.profile ? `${peer.name}-${what}` : undefined);
  const drainRun = (processes: number, concurrency: number, repeat: number): Run => ({
    name: `drain ${processes}×${concurrency} (run ${repeat} of ${config.drainRepeats})`,
    scenario: "drain",
    async measure(peer, producer, target, into) {
      const layout = `${processes}x${concurrency}` as "1x10" | "2x5";
      const result = await drain(peer, producer, target, {
        processes,
        concurrency,
        count: config.drainCount,
        timeoutMs,
        profileName: profileName(peer, `drain-${layout}-${repeat}`),
      });
      const runs = ((into.drainRuns ??= {})[layout] ??= []);
      runs.push(result);
      const median = [...runs].sort((a, b) => a.tasksPerSecond - b.tasksPerSecond)[Math.floor((runs.length - 1) / 2)]!;
      into.drain = { ...into.drain!, [layout]: median };
      return `${Math.round(result.tasksPerSecond)} tasks/s (${(result.durationMs / 1000).toFixed(2)} s, handled ${result.handled}), peak RSS ${result.peakRssMb.toFixed(0)} MB (${result.startedRssMb.toFixed(0)} MB once started; heap ${result.peakHeapTotalMb.toFixed(0)} MB, external ${result.peakExternalMb.toFixed(0)} MB); CPU per 1,000 tasks: workers ${result.workerCpuMsPer1000.toFixed(0)} ms, machine ${result.machineCpuMsPer1000?.toFixed(0) ?? "–"} ms`;
    },
  });
  const latencyRun = (inProcess: boolean): Run => ({
    name: `latency at ${config.latencyRate}/s${inProcess ? ", worker in the app's process" : ""}`,
    scenario: "latency",
    applies: (peer) => !inProcess || peer.startInProcess !== undefined,
    async measure(peer, producer, target, into) {
      const result = await latency(peer, producer, target, {
        rate: config.latencyRate,
        seconds: config.latencySeconds,
        timeoutMs,
        profileName: inProcess ? undefined : profileName(peer, "latency"),
        inProcess,
      });
      if (inProcess) into.latencyInProcess = result;
      else into.latency = result;
      const ms = (v: number) => v.toFixed(2);
      return `p50 ${ms(result.p50)} p90 ${ms(result.p90)} p99 ${ms(result.p99)} max ${ms(result.max)} ms (${result.samples} samples, ${result.missing} missing, ${Math.round(result.achievedRate)}/s; harness loop delay p50 ${ms(result.harnessLoopDelayMs.p50)} p99 ${ms(result.harnessLoopDelayMs.p99)} ms; the enqueuing transaction p50 ${ms(result.transactionMs.p50)} p99 ${ms(result.transactionMs.p99)} ms)`;
    },
  });
  // Unlimited and limited alternate, each on a fresh database, so a change of load hits both alike.
  const controlsRun = (limited: boolean, repeat: number): Run => ({
    name: `drain 2×5, the queue ${limited ? "limited (concurrency 1,000, 1,000,000 starts/s)" : "unlimited"} (run ${repeat} of ${config.drainRepeats})`,
    scenario: "controls",
    applies: (peer) => peer.name === "ours" || peer.name === "ours-sqlite" || peer.name === "ours-mysql",
    async measure(peer, producer, target, into) {
      const result = await queueControlsDrain(peer, producer, target, { limited, count: config.drainCount, timeoutMs });
      ((into.controlsRuns ??= {})[limited ? "limited" : "unlimited"] ??= []).push(result);
      return `${Math.round(result.tasksPerSecond)} tasks/s (${(result.durationMs / 1000).toFixed(2)} s, handled ${result.handled}); CPU per 1,000 tasks: workers ${result.workerCpuMsPer1000.toFixed(0)} ms, machine ${result.machineCpuMsPer1000?.toFixed(0) ?? "–"} ms`;
    },
  });
  const drainLine = (result: { tasksPerSecond: number; durationMs: number; handled: number; workerCpuMsPer1000: number; machineCpuMsPer1000?: number }) =>
    `${Math.round(result.tasksPerSecond)} tasks/s (${(result.durationMs / 1000).toFixed(2)} s, handled ${result.handled}); CPU per 1,000 tasks: workers ${result.workerCpuMsPer1000.toFixed(0)} ms, machine ${result.machineCpuMsPer1000?.toFixed(0) ?? "–"} ms`;
  // One transaction and one-task transactions alternate, each on a fresh database.
  const backlogRun = (seeding: "bulk" | "singly", repeat: number): Run => ({
    name: `drain 1×10 of ${config.drainCount} enqueued ${seeding === "bulk" ? "in one transaction" : "by one-task transactions"} (run ${repeat} of ${config.drainRepeats})`,
    scenario: "backlog",
    async measure(peer, producer, target, into) {
      const result = await backlogDrain(peer, producer, target, {
        seeding,
        count: config.drainCount,
        timeoutMs,
        profileName: profileName(peer, `backlog-${seeding}-${repeat}`),
      });
      ((into.backlogRuns ??= {})[seeding] ??= []).push(result);
      return `${drainLine(result)}${result.wakeupsWaiting === undefined ? "" : `; ${result.wakeupsWaiting} wake-up messages waited in RabbitMQ`}`;
    },
  });
  const backlog = inTurns(config.drainRepeats, (repeat) => [backlogRun("bulk", repeat), backlogRun("singly", repeat)]);
  const retentionRun = (deletes: boolean, repeat: number): Run => ({
    name: `drain 1×10, ${deletes ? "deleteOnSuccess" : "succeeded rows kept"} (run ${repeat} of ${config.drainRepeats})`,
    scenario: "retention",
    applies: (peer) => peer.name.startsWith("ours"),
    async measure(peer, producer, target, into) {
      const result = await retentionDrain(peer, producer, target, { deletes, count: config.drainCount, timeoutMs });
      ((into.retentionRuns ??= {})[deletes ? "delete" : "keep"] ??= []).push(result);
      return drainLine(result);
    },
  });
  const retention = inTurns(config.drainRepeats, (repeat) => [retentionRun(false, repeat), retentionRun(true, repeat)]);
  const controls = inTurns(config.drainRepeats, (repeat) => [controlsRun(false, repeat), controlsRun(true, repeat)]);
  const drains = Array.from({ length: config.drainRepeats }, (_, i) => [drainRun(1, 10, i + 1), drainRun(2, 5, i + 1)]).flat();
  const all: Run[] = [
    {
      name: "enqueue in a transaction",
      scenario: "enqueue",
      async measure(_peer, producer, _target, into) {
        const c1 = await enqueueTransaction(producer, 1, config.txSeconds);
        const c10 = await enqueueTransaction(producer, 10, config.txSeconds);
        into.enqueue = { c1, c10 };
        const show = (r: typeof c1) => `c${r.concurrency}: ${Math.round(r.withEnqueue)} vs ${Math.round(r.without)} tx/s (${(r.ratio * 100).toFixed(1)} %)`;
        return `${show(c1)}; ${show(c10)}`;
      },
    },
    {
      name: `bulk add of ${config.bulkCount}`,
      scenario: "bulk",
      async measure(_peer, producer, _target, into) {
        into.bulk = await bulkAdd(producer, config.bulkCount);
        return `${Math.round(into.bulk.tasksPerSecond)} tasks/s (runs ${into.bulk.runsMs.map((ms) => ms.toFixed(0)).join(", ")} ms)`;
      },
    },
    ...drains,
    latencyRun(false),
    latencyRun(true),
    {
      name: `lateness of ${config.latenessCount} tasks delayed 0.2–5 s, no cleaner`,
      scenario: "lateness",
      applies: (peer) => peer.measuresLateness === true,
      async measure(peer, producer, target, into) {
        const result = await lateness(peer, producer, target, { count: config.latenessCount, minDelayMs: 200, maxDelayMs: 5000, timeoutMs });
        into.lateness = result;
        const ms = (v: number) => v.toFixed(2);
        return `claim − run_at (database clock): p50 ${ms(result.p50)} p99 ${ms(result.p99)} max ${ms(result.max)} min ${ms(result.min)} ms (${result.samples} samples, ${result.missing} missing; worker in the ${result.worker})`;
      },
    },
    ...controls,
    ...backlog,
    ...retention,
  ];
  return all.filter((run) => config.only.includes(run.scenario));
}

/**
 * The runs of a comparison, `repeats` pairs, each pair in the other order than the one before (A B, B A, A B, …): the
 * second run of a pair followed the first's database drop and shared its warm-up, which an A/A comparison under load
 * found worth 3–11 %; in turns, that falls on both sides alike.
 */
function inTurns(repeats: number, pair: (repeat: number) => [Run, Run]): Run[] {
  return Array.from({ length: repeats }, (_, i) => {
    const [first, second] = pair(i + 1);
    return i % 2 === 0 ? [first, second] : [second, first];
  }).flat();
}
