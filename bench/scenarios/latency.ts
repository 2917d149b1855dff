// Scenario 4: idle workers (1 process × 10, or a worker of 10 inside the harness, the app's process), then one
// enqueue per transaction at `rate` per second for `seconds`; for each task, the handler's start minus the moment its
// transaction's commit returned, on one wall clock. A one-second warm-up at the same rate comes first and is not counted.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { sleep, wallMs } from "../clock.js";
import { WorkerProcesses } from "../child/worker-processes.js";
import type { Peer, Producer, RunTarget, WorkerHandle } from "../peers/peer.js";
import { percentile } from "../stats.js";

export interface LatencyResult {
  rate: number;
  seconds: number;
  samples: number;
  /** Tasks whose handler start was never reported. */
  missing: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** The achieved enqueue rate, per second. */
  achievedRate: number;
  /**
   * Event-loop delay of the harness (the app) while it enqueued, p50 / p99 in ms. Ours publishes from this event
   * loop after each commit, so a busy app delays its wake-ups; NOTIFY-based peers are woken by the database.
   */
  harnessLoopDelayMs: { p50: number; p99: number };
  /** How long the app's enqueuing transaction (business row + one enqueue) took, from the call to its return, in ms. */
  transactionMs: { p50: number; p99: number; max: number };
  /** With `keepTimes`: [payload n, commit returned, handler start] of every measured task (wall ms). */
  times?: Array<[number, number, number]>;
}

const IDLE_MS = 500;

export async function latency(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  options: { rate: number; seconds: number; timeoutMs: number; profileName?: string; inProcess?: boolean; keepTimes?: boolean },
): Promise<LatencyResult> {
  const workers = await latencyWorkers(peer, target, options);
  try {
    const crashed = workers.crashed();
    await Promise.race([workers.start(), crashed]);
    await sleep(IDLE_MS);
    const warmup = options.rate; // one second's worth
    const total = warmup + Math.round(options.rate * options.seconds);
    const commits = new Array<number>(total);
    const calls = new Array<number>(total);
    const intervalMs = 1000 / options.rate;
    const inflight: Promise<void>[] = [];
    const failures: unknown[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const begin = wallMs();
    let measuredFrom = 0;
    for (let n = 0; n < total; n++) {
      const due = begin + n * intervalMs;
      const wait = due - wallMs();
      if (wait > 0) await sleep(wait);
      if (n === warmup) measuredFrom = wallMs();
      calls[n] = wallMs();
      inflight.push(
        producer.transaction(n, true).then(
          () => void (commits[n] = wallMs()),
          (error: unknown) => void failures.push(error),
        ),
      );
    }
    await Promise.race([Promise.all(inflight), crashed]);
    if (failures.length > 0) throw new Error(`${peer.name}: ${failures.length} of ${total} latency transactions failed; first: ${String(failures[0])}`);
    const measuredMs = wallMs() - measuredFrom;
    loopDelay.disable();
    const deadline = wallMs() + options.timeoutMs;
    while ((await producer.remaining()) > 0) {
      if (wallMs() > deadline) throw new Error(`${peer.name}: latency tasks still unfinished after ${options.timeoutMs} ms`);
      await sleep(20);
    }
    const startOf = new Map((await workers.stop()).map(([n, start]) => [n, start]));
    const durations = commits.slice(warmup).map((commit, i) => commit - calls[warmup + i]!);
    const samples: number[] = [];
    const times: Array<[number, number, number]> = [];
    for (let n = warmup; n < total; n++) {
      const start = startOf.get(n);
      if (start === undefined) continue;
      samples.push(start - commits[n]!);
      if (options.keepTimes) times.push([n, commits[n]!, start]);
    }
    return {
      rate: options.rate,
      seconds: options.seconds,
      samples: samples.length,
      missing: total - warmup - samples.length,
      p50: percentile(samples, 50),
      p90: percentile(samples, 90),
      p99: percentile(samples, 99),
      max: Math.max(...samples),
      achievedRate: ((total - warmup) * 1000) / measuredMs,
      harnessLoopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6 },
      transactionMs: { p50: percentile(durations, 50), p99: percentile(durations, 99), max: Math.max(...durations) },
      ...(options.keepTimes ? { times } : {}),
    };
  } catch (error) {
    workers.kill();
    throw error;
  }
}

/** The worker side of a latency run: started, watched for a crash, stopped with the handler starts it recorded. */
export interface LatencyWorkers {
  start(): Promise<unknown>;
  crashed(): Promise<never>;
  /** Resolves with [payload n, handler start (wall ms), claim time on the database's clock (NaN when unknown)] of every run. */
  stop(): Promise<Array<[number, number, number]>>;
  kill(): void;
}

/** One worker process of concurrency 10 for `peer`, or with `inProcess` its worker inside this process. */
export async function latencyWorkers(peer: Peer, target: RunTarget, options: { timeoutMs: number; profileName?: string; inProcess?: boolean }): Promise<LatencyWorkers> {
  return options.inProcess ? await InProcessWorker.start(peer, target) : await childWorker(peer, target, options);
}

async function childWorker(peer: Peer, target: RunTarget, options: { timeoutMs: number; profileName?: string }): Promise<LatencyWorkers> {
  const workers = await WorkerProcesses.spawn(
    { workerModule: peer.workerModule, target, concurrency: 10, record: true },
    { processes: 1, profileName: options.profileName, timeoutMs: options.timeoutMs },
  );
  return {
    start: () => workers.start(),
    crashed: () => workers.crashed(),
    stop: async () => (await workers.stop())[0]!.starts,
    kill: () => workers.kill(),
  };
}

/** The peer's worker inside this process, beside the app's client (see Peer.startInProcess). */
class InProcessWorker implements LatencyWorkers {
  private handle: WorkerHandle | undefined;
  private readonly starts: Array<[number, number, number]> = [];

  private constructor(
    private readonly peer: Peer,
    private readonly target: RunTarget,
  ) {}

  static async start(peer: Peer, target: RunTarget): Promise<InProcessWorker> {
    if (!peer.startInProcess) throw new Error(`${peer.name} has no in-process worker`);
    return new InProcessWorker(peer, target);
  }

  async start(): Promise<void> {
    this.handle = await this.peer.startInProcess!({
      target: this.target,
      concurrency: 10,
      onRun: (n, claimedAtMs) => void this.starts.push([n, wallMs(), claimedAtMs ?? Number.NaN]),
    });
  }

  crashed(): Promise<never> {
    return new Promise<never>(() => {}); // a crash in this process ends the harness itself
  }

  async stop(): Promise<Array<[number, number, number]>> {
    await this.handle?.stop();
    return this.starts;
  }

  kill(): void {
    void this.handle?.stop();
  }
}
